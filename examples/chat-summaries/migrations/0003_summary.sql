alter table chats add column summary text not null default '';
