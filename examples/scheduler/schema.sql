-- jobs.db: the jobs only the scheduler's leader runs, each with the term of
-- the leader that ran it last (40 digits, which compare as text in number
-- order). Applied by every language's program at start; idempotent.
create table if not exists jobs (
    name text primary key,
    runs integer not null default 0,
    last_run_by text not null default '',
    term text not null default ''
);
insert or ignore into jobs (name) values ('nightly-report');
