//! Issue 35, class G: files a scenario reads (an event's delivery trace, a workload's CDF)
//! were read without bound: a FIFO blocked with no error, a file that never ends was read
//! until memory ran out. They must be regular files, at most `MAX_INPUT_FILE_BYTES`, and an
//! error names the field and the path.

use aqmlab_core::scenario::input_file::MAX_INPUT_FILE_BYTES;
use aqmlab_core::testing::Dumbbell;
use aqmlab_core::Scenario;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("aqmlab-inputs-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// One sender's dumbbell for 2 s with `rest` after the topology.
fn one_sender(rest: &str) -> String {
    Dumbbell {
        senders: 1,
        rest,
        ..Default::default()
    }
    .toml()
}

fn with_trace(path: &Path) -> String {
    one_sender(&format!(
        r#"
        [[flows]]
        kind = "tcp"
        from = "s0"
        to = "d0"
        [[events]]
        at = "1s"
        link = "bottleneck"
        rate = {{ trace = "{}" }}
        "#,
        path.display()
    ))
}

fn with_cdf(path: &Path) -> String {
    one_sender(&format!(
        r#"
        [[flows]]
        kind = "workload"
        from = "s0"
        to = "d0"
        rate = 10
        sizes = {{ dist = "cdf", file = "{}" }}
        "#,
        path.display()
    ))
}

/// The scenario's error, or a failure if parsing it takes more than 10 s (it used to block
/// for ever on a FIFO).
fn error_within_10s(text: String) -> String {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(Scenario::from_toml(&text).map(|_| ()));
    });
    match rx.recv_timeout(Duration::from_secs(10)) {
        Ok(Err(e)) => e.to_string(),
        Ok(Ok(())) => panic!("accepted"),
        Err(_) => panic!("still reading after 10 s"),
    }
}

#[cfg(target_os = "linux")]
#[test]
fn a_fifo_as_an_input_file_is_refused_at_once() {
    let d = scratch("fifo");
    let fifo = d.join("trace.fifo");
    let status = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(status.success());
    let e = error_within_10s(with_trace(&fifo));
    assert_eq!(
        e,
        format!(
            "events[0].rate.trace: '{}': is a FIFO (named pipe), not a regular file",
            fifo.display()
        )
    );
    let e = error_within_10s(with_cdf(&fifo));
    assert!(
        e.starts_with(&format!(
            "flows[0].sizes.file: '{}': is a FIFO",
            fifo.display()
        )),
        "{e}"
    );
    let e = error_within_10s(with_trace(&d));
    assert!(e.ends_with("is a directory, not a regular file"), "{e}");
    let _ = std::fs::remove_dir_all(&d);
}

/// A file past the cap (here a sparse one: no disk is used) is refused once the cap is
/// read, not read to its end.
#[test]
fn an_input_file_above_the_cap_is_refused() {
    let d = scratch("big");
    let big = d.join("big.mahimahi");
    let f = std::fs::File::create(&big).unwrap();
    f.set_len(MAX_INPUT_FILE_BYTES * 4).unwrap();
    let e = error_within_10s(with_trace(&big));
    assert_eq!(
        e,
        format!(
            "events[0].rate.trace: '{}': is larger than 64 MiB, the most an input file may have",
            big.display()
        )
    );
    let _ = std::fs::remove_dir_all(&d);
}
