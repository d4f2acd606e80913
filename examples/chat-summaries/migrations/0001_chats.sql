create table chats (
    id integer primary key,
    title text not null default ''
);
