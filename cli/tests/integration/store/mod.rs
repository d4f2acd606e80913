//! The store directory as the command sees it: paths, and the grace after
//! an unclean stop.

mod dirs;
mod grace;
