//! Newline framing (stdio, child processes): any bytes, in any chunking, give lines
//! without a newline, none longer than the limit, and the same lines however the bytes
//! arrive.
#![no_main]

use libfuzzer_sys::fuzz_target;
use oxmcp::transport::framing::LineReader;
use tokio::io::AsyncWriteExt;

const MAX: usize = 64;

fn lines(rt: &tokio::runtime::Runtime, data: &[u8], chunk: usize) -> Vec<Result<Vec<u8>, String>> {
    rt.block_on(async {
        // A pipe with a tiny buffer makes the reader see the bytes in `chunk`-sized pieces.
        let (mut w, r) = tokio::io::duplex(chunk.max(1));
        let data = data.to_vec();
        let writer = tokio::spawn(async move {
            let _ = w.write_all(&data).await;
        });
        let mut reader = LineReader::new(r, MAX);
        let mut out = Vec::new();
        while let Some(line) = reader.next_line().await.expect("a duplex does not fail") {
            match line {
                Ok(l) => {
                    assert!(!l.is_empty() && l.len() <= MAX && !l.contains(&b'\n'), "bad line {l:?}");
                    out.push(Ok(l.to_vec()));
                }
                Err(e) => out.push(Err(format!("{e:?}"))),
            }
        }
        writer.await.unwrap();
        out
    })
}

fuzz_target!(|data: &[u8]| {
    let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
    let Some((&chunk, data)) = data.split_first() else { return };
    let whole = lines(&rt, data, data.len().max(1));
    let pieces = lines(&rt, data, chunk as usize % 17 + 1);
    assert_eq!(whole, pieces, "the lines depend on how the bytes arrived");
});
