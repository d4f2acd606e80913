//! `tinystore-pairs ADDRESS PAIRS [TASKS]`: acquire then release a lock on a
//! random key among 1,000, `PAIRS` times in all, split over `TASKS` tasks
//! (default 1), each on its own connection; prints the time taken. Made to
//! be run under `valgrind --tool=callgrind`, beside a server run the same
//! way, to count the instructions a pair costs on each side.

use std::time::Instant;

fn usage() -> ! {
    eprintln!("usage: tinystore-pairs ADDRESS PAIRS [TASKS]");
    std::process::exit(2)
}

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(address), Some(pairs)) = (args.first(), args.get(1)) else {
        usage()
    };
    let pairs: u64 = pairs.parse().unwrap_or_else(|_| usage());
    let tasks: u64 = match args.get(2) {
        Some(t) => t.parse().ok().filter(|t| *t > 0).unwrap_or_else(|| usage()),
        None => 1,
    };
    let started = Instant::now();
    let mut running = Vec::new();
    for task in 0..tasks {
        let address = address.clone();
        running.push(tokio::spawn(async move {
            let store = tinystore::Store::connect(&address).await?;
            let locks = store.locks("bench");
            let mut rng = 0x9E37_79B9_7F4A_7C15u64 ^ (task + 1).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            for _ in 0..pairs / tasks {
                rng ^= rng << 13;
                rng ^= rng >> 7;
                rng ^= rng << 17;
                let lease = locks.acquire(format!("k{}", rng % 1000)).await?;
                lease.release().await?;
            }
            Ok::<_, tinystore::Error>(())
        }));
    }
    for task in running {
        match task.await {
            Ok(Ok(())) => {}
            Ok(Err(e)) => {
                eprintln!("tinystore-pairs: {e}");
                std::process::exit(1);
            }
            Err(e) => {
                eprintln!("tinystore-pairs: a task failed: {e}");
                std::process::exit(1);
            }
        }
    }
    println!("{pairs} pairs in {:?}", started.elapsed());
}
