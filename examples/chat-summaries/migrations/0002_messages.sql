create table messages (
    id integer primary key,
    chat_id integer not null references chats (id),
    body text not null
);
create index messages_by_chat on messages (chat_id, id);
