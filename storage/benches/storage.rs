//! `cargo bench -p kibitz-storage`: the store's speed targets (see `kibitz_storage::bench`).

fn main() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    match kibitz_storage::bench(dir.path()) {
        Ok(report) => println!("{report}"),
        Err(e) => {
            eprintln!("bench failed: {e}");
            std::process::exit(1);
        }
    }
}
