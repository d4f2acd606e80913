//! The `tinystore` binary: the command line of `tinystore_cli`.

fn main() {
    std::process::exit(tinystore_cli::run(std::env::args_os()));
}
