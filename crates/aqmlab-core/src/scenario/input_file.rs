//! Reading the files a scenario names as input (an event's `rate = { trace = "..." }`, a
//! workload's `size = { dist = "cdf", file = "..." }`): regular files only, up to
//! [`MAX_INPUT_FILE_BYTES`], read in pieces between which Ctrl-C is heard
//! (`sim::work_budget::keep_going`). Issue 35: a FIFO given as a trace blocked with no
//! error, and a file that never ends was read until memory ran out, deaf to Ctrl-C.

use crate::sim::work_budget::keep_going;
use crate::units::error::ScenarioError;
use std::fs::File;
use std::io::Read;

/// The largest input file read: 64 MiB. A mahimahi trace has a line of 2 to 8 bytes per
/// 1500-byte opportunity, so this holds over 8 million opportunities (100 Gbit: 100 s at
/// 1 Gb/s, and a trace repeats); the largest traces of mahimahi's and Pantheon's collections
/// are a few megabytes, and an empirical CDF a few hundred lines.
pub const MAX_INPUT_FILE_BYTES: u64 = 64 << 20;

/// Bytes read between two polls of the interrupt check (a millisecond of reading or less).
const PIECE: usize = 1 << 20;

/// The text of the file at `path`, named by the scenario's field `field`; errors (at
/// `field`) name the path and say why.
pub fn read_text(path: &str, field: &str) -> Result<String, ScenarioError> {
    read_text_capped(path, field, MAX_INPUT_FILE_BYTES)
}

fn read_text_capped(path: &str, field: &str, cap: u64) -> Result<String, ScenarioError> {
    let err = |m: String| ScenarioError::new(field, format!("'{path}': {m}"));
    // Looked at before opening: opening a FIFO for reading waits for a writer.
    let meta = std::fs::metadata(path).map_err(|e| err(format!("cannot read it: {e}")))?;
    if !meta.is_file() {
        return Err(err(format!(
            "is {}, not a regular file",
            kind_of(&meta.file_type())
        )));
    }
    let file = open(path).map_err(|e| err(format!("cannot read it: {e}")))?;
    // Looked at again on the open file, in case the path changed in between.
    let meta = file
        .metadata()
        .map_err(|e| err(format!("cannot read it: {e}")))?;
    if !meta.is_file() {
        return Err(err(format!(
            "is {}, not a regular file",
            kind_of(&meta.file_type())
        )));
    }
    let mut bytes = Vec::with_capacity(meta.len().min(cap) as usize);
    // One byte beyond the cap tells a file at the cap from a larger one (the length from
    // the metadata is not trusted: the file may be growing, or be a /proc file of size 0).
    let mut reader = file.take(cap + 1);
    let mut piece = vec![0u8; PIECE];
    loop {
        keep_going().map_err(|_| err("reading was interrupted".into()))?;
        let n = reader
            .read(&mut piece)
            .map_err(|e| err(format!("cannot read it: {e}")))?;
        if n == 0 {
            break;
        }
        bytes.extend_from_slice(&piece[..n]);
    }
    if bytes.len() as u64 > cap {
        return Err(err(format!(
            "is larger than {} MiB, the most an input file may have",
            cap >> 20
        )));
    }
    String::from_utf8(bytes).map_err(|e| {
        err(format!(
            "is not UTF-8 text (byte {} is not)",
            e.utf8_error().valid_up_to() + 1
        ))
    })
}

/// Opens for reading; on Linux without blocking, so that a FIFO put in place of the file
/// after it was looked at does not wait for a writer (it is then refused as not regular).
fn open(path: &str) -> std::io::Result<File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    options.open(path)
}

fn kind_of(t: &std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO (named pipe)";
        }
        if t.is_char_device() || t.is_block_device() {
            return "a device";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    if t.is_dir() {
        "a directory"
    } else {
        "not a file"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::work_budget::with_interrupt_check;

    fn scratch(name: &str) -> std::path::PathBuf {
        let d = std::env::temp_dir().join(format!("aqmlab-input-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn a_regular_file_is_read() {
        let p = scratch("ok").join("t.txt");
        std::fs::write(&p, "1\n2\n").unwrap();
        assert_eq!(read_text(p.to_str().unwrap(), "f").unwrap(), "1\n2\n");
    }

    #[test]
    fn not_a_regular_file_is_refused_with_field_and_path() {
        let d = scratch("dir");
        let e = read_text(d.to_str().unwrap(), "events[0].rate.trace").unwrap_err();
        assert_eq!(e.path, "events[0].rate.trace");
        assert!(e.message.contains(d.to_str().unwrap()), "{e}");
        assert!(e.message.contains("a directory, not a regular file"), "{e}");
        #[cfg(unix)]
        {
            let e = read_text("/dev/zero", "f").unwrap_err();
            assert!(e.message.contains("a device, not a regular file"), "{e}");
        }
        let e = read_text("/no/such/file", "f").unwrap_err();
        assert!(
            e.message.starts_with("'/no/such/file': cannot read it"),
            "{e}"
        );
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_fifo_is_refused_without_waiting_for_a_writer() {
        let p = scratch("fifo").join("trace.fifo");
        let _ = std::fs::remove_file(&p);
        let c = std::ffi::CString::new(p.to_str().unwrap()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let e = read_text(p.to_str().unwrap(), "f").unwrap_err();
        assert!(
            e.message
                .contains("a FIFO (named pipe), not a regular file"),
            "{e}"
        );
    }

    #[test]
    fn a_file_above_the_cap_is_refused_and_one_at_it_read() {
        let p = scratch("cap").join("big.txt");
        std::fs::write(&p, vec![b'1'; (2 << 20) + 1]).unwrap();
        let path = p.to_str().unwrap();
        let e = read_text_capped(path, "f", 2 << 20).unwrap_err();
        assert!(e.message.contains("is larger than 2 MiB"), "{e}");
        assert_eq!(
            read_text_capped(path, "f", (2 << 20) + 1).unwrap().len(),
            (2 << 20) + 1
        );
    }

    #[test]
    fn reading_stops_when_interrupted() {
        let p = scratch("stop").join("t.txt");
        std::fs::write(&p, "1\n").unwrap();
        let path = p.to_str().unwrap().to_string();
        let e = with_interrupt_check(Box::new(|| false), || read_text(&path, "f")).unwrap_err();
        assert!(e.message.ends_with("reading was interrupted"), "{e}");
    }
}
