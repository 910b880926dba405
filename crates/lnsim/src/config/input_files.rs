//! Reading the files a run reads as input: the scenario and the files it names
//! (`topology.file`, `routing.file`, `cc.cct.file`). Each must be a regular file of at most
//! [`MAX_INPUT_BYTES`]: a FIFO, a device (`/dev/zero`), a socket or a folder is refused before it
//! is opened for reading (a FIFO would block the run before it could be interrupted, a device
//! could be read until memory runs out), and so is a larger file.

use std::io::Read;
use std::path::Path;

/// The largest input file lnsim reads, in bytes (16 MiB): scenario files are a few kilobytes,
/// the largest topology or forwarding-table files a few megabytes.
pub const MAX_INPUT_BYTES: u64 = 16 << 20;

/// What a file that is not a regular file is, for messages (`a FIFO (named pipe)`).
fn kind_of(meta: &std::fs::Metadata) -> &'static str {
    let t = meta.file_type();
    if t.is_dir() {
        return "a folder";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO (named pipe)";
        }
        if t.is_char_device() {
            return "a character device";
        }
        if t.is_block_device() {
            return "a block device";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    "not a regular file"
}

/// Reads the input file at `path` as UTF-8 text. `Err` is why it cannot be, in words that
/// follow the file's name (`is a FIFO (named pipe), not a regular file`, `does not exist`,
/// `is larger than 16 MiB …`); the caller names the file and the key that gave it.
pub fn read_text(path: &Path) -> Result<String, String> {
    // stat first: opening a FIFO for reading blocks until a writer comes
    let meta = std::fs::metadata(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => "does not exist".to_string(),
        _ => format!("cannot be read: {e}"),
    })?;
    if !meta.is_file() {
        let kind = kind_of(&meta);
        return Err(if kind == "not a regular file" {
            "is not a regular file; give a file".to_string()
        } else {
            format!("is {kind}, not a regular file; give a file")
        });
    }
    let too_large = || {
        format!(
            "is larger than {} MiB, the most lnsim reads from an input file",
            MAX_INPUT_BYTES >> 20
        )
    };
    if meta.len() > MAX_INPUT_BYTES {
        return Err(too_large());
    }
    let file = std::fs::File::open(path).map_err(|e| format!("cannot be read: {e}"))?;
    // (the file may have been replaced or grown since the stat: read at most one byte more)
    let mut bytes = Vec::new();
    file.take(MAX_INPUT_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot be read: {e}"))?;
    if bytes.len() as u64 > MAX_INPUT_BYTES {
        return Err(too_large());
    }
    String::from_utf8(bytes).map_err(|e| {
        format!(
            "is not UTF-8 text (invalid byte at offset {})",
            e.utf8_error().valid_up_to()
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regular_files_are_read_and_everything_else_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("s.toml");
        std::fs::write(&f, "[sim]\n").unwrap();
        assert_eq!(read_text(&f).unwrap(), "[sim]\n");
        assert_eq!(
            read_text(&dir.path().join("none")).unwrap_err(),
            "does not exist"
        );
        assert_eq!(
            read_text(dir.path()).unwrap_err(),
            "is a folder, not a regular file; give a file"
        );
        // a file one byte over the limit (sparse: nothing is written)
        let big = dir.path().join("big.toml");
        std::fs::File::create(&big)
            .unwrap()
            .set_len(MAX_INPUT_BYTES + 1)
            .unwrap();
        assert!(read_text(&big)
            .unwrap_err()
            .starts_with("is larger than 16 MiB"));
        std::fs::write(&f, [b'a', 0xff, b'b']).unwrap();
        assert!(read_text(&f).unwrap_err().starts_with("is not UTF-8 text"));
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_and_a_device_are_refused_without_being_opened() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo.toml");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .is_ok_and(|s| s.success());
        if made {
            // (opening it for reading would block this test forever)
            assert_eq!(
                read_text(&fifo).unwrap_err(),
                "is a FIFO (named pipe), not a regular file; give a file"
            );
        }
        assert_eq!(
            read_text(Path::new("/dev/zero")).unwrap_err(),
            "is a character device, not a regular file; give a file"
        );
    }
}
