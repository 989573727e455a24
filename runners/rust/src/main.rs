//! cipherbench Rust runner: protocol v1 (docs/protocol.md) on stdin/stdout.
//! Implementations (rustcrypto, ring, aws-lc-rs) and the canonical-name table
//! are in impls.rs; this file is the protocol loop, length checks and timed loops.
mod impls;

use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::io::{BufRead, Write};
use std::time::Instant;

include!(concat!(env!("OUT_DIR"), "/versions.rs"));

pub fn crate_version(name: &str) -> String {
    CRATE_VERSIONS.iter().find(|(n, _)| *n == name).map(|(_, v)| v.to_string()).unwrap_or_else(|| "unknown".into())
}

/// One registry record (build/runners/rust/registry.json, written by build.sh from the registry).
#[derive(Clone)]
pub struct Prim {
    pub name: String,
    pub kind: String,
    pub mode: String,
    pub key_bytes: usize,
    pub block_bytes: usize,
    pub iv_bytes: usize,
    pub tag_bytes: usize,
    pub digest_bytes: usize,
    pub whole_blocks: bool,
}

pub enum Ans {
    Fail(String),
    Unsupported(String),
}
type R<T> = Result<T, Ans>;
fn fail<T>(m: impl Into<String>) -> R<T> {
    Err(Ans::Fail(m.into()))
}

// ------------------------------------------------------------------ what an implementation provides

/// Transforms `buf` in place, continuing the message (block modes, streams).
pub type Xform<'a> = Box<dyn FnMut(&mut [u8]) + 'a>;

/// A keyed block-mode or stream context; `start` is the per-message init with the IV.
pub trait Keyed {
    fn start<'a>(&'a self, iv: &[u8]) -> Result<Xform<'a>, String>;
}
/// A keyed AEAD. `seal` works in place and returns the tag; `open` reads `ct`
/// and writes `out` (same length), returning whether the tag verified.
pub trait AeadKeyed {
    fn seal(&self, iv: &[u8], aad: &[u8], buf: &mut [u8], tag: &mut [u8]);
    fn open(&self, iv: &[u8], aad: &[u8], ct: &[u8], tag: &[u8], out: &mut [u8]) -> bool;
}
pub trait HashCtx {
    fn update(&mut self, data: &[u8]);
    /// Writes the digest and resets the context.
    fn finish(&mut self) -> Vec<u8>;
}

pub enum Kind {
    /// key setup for a direction (true = encrypt); key lengths were checked against the registry.
    Cipher(Box<dyn Fn(&[u8], bool) -> Result<Box<dyn Keyed>, String>>),
    Aead(Box<dyn Fn(&[u8]) -> Result<Box<dyn AeadKeyed>, String>>),
    Hash(Box<dyn Fn() -> Box<dyn HashCtx>>),
}

pub struct Entry {
    pub prim: Prim,
    pub provider: String,
    /// the code path as data (docs/protocol.md, features); None: unknown
    pub features: Option<Vec<&'static str>>,
    pub kind: Kind,
    /// Some(reason): keysetup is answered unsupported (no key-setup step in the API).
    pub no_keysetup: Option<String>,
    /// Some(reason): the API cannot continue a message across calls ("chunks" is unsupported).
    pub one_call: Option<String>,
}

pub struct Impl {
    pub name: String,
    pub library: String,
    pub version: String,
    pub notes: Map<String, Value>,
    pub entries: Vec<Entry>,
}

// ------------------------------------------------------------------ registry

fn load_registry() -> Result<Vec<Prim>, String> {
    let args: Vec<String> = std::env::args().collect();
    let path = if args.len() > 2 && args[1] == "--registry" {
        args[2].clone()
    } else if let Ok(p) = std::env::var("CB_REGISTRY") {
        p
    } else {
        let exe = std::env::current_exe().map_err(|e| e.to_string())?;
        exe.parent().unwrap().join("registry.json").to_string_lossy().into_owned()
    };
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{path}: {e}"))?;
    let v: Value = serde_json::from_str(&text).map_err(|e| format!("{path}: {e}"))?;
    let list = v.as_array().ok_or("registry.json is not a list")?;
    let n = |p: &Value, f: &str| p.get(f).and_then(Value::as_u64).unwrap_or(0) as usize;
    Ok(list
        .iter()
        .map(|p| Prim {
            name: p["name"].as_str().unwrap_or("").to_string(),
            kind: p["kind"].as_str().unwrap_or("").to_string(),
            mode: p.get("mode").and_then(Value::as_str).unwrap_or("").to_string(),
            key_bytes: n(p, "key_bytes"),
            block_bytes: n(p, "block_bytes"),
            iv_bytes: n(p, "iv_bytes"),
            tag_bytes: n(p, "tag_bytes"),
            digest_bytes: n(p, "digest_bytes"),
            whole_blocks: p.get("whole_blocks").and_then(Value::as_bool).unwrap_or(false),
        })
        .collect())
}

// ------------------------------------------------------------------ request fields

fn string(req: &Map<String, Value>, f: &str) -> R<String> {
    match req.get(f) {
        None => fail(format!("missing field '{f}'")),
        Some(Value::String(s)) => Ok(s.clone()),
        Some(_) => fail(format!("field '{f}' must be a string")),
    }
}

fn count(req: &Map<String, Value>, f: &str, dflt: u64, required: bool) -> R<u64> {
    match req.get(f) {
        None if required => fail(format!("missing field '{f}'")),
        None => Ok(dflt),
        Some(v) => v.as_u64().map_or_else(|| fail(format!("field '{f}' must be a non-negative integer")), Ok),
    }
}

fn unhex(req: &Map<String, Value>, f: &str, required: bool) -> R<Vec<u8>> {
    let s = match req.get(f) {
        None | Some(Value::Null) if required => return fail(format!("missing field '{f}'")),
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::String(s)) => s,
        Some(_) => return fail(format!("field '{f}' must be a hex string")),
    };
    if s.len() % 2 != 0 {
        return fail(format!("field '{f}' has an odd number of hex digits"));
    }
    // Either case, as docs/protocol.md allows; the hex crate says which byte is wrong, we say the field.
    hex::decode(s).or_else(|_| fail(format!("field '{f}' is not hex")))
}

fn hex(b: &[u8]) -> String {
    hex::encode(b) // lower case, as the protocol's outputs are
}

/// Cap on "fill" "bytes" (64 MiB, docs/protocol.md).
const MAX_FILL: u64 = 64 << 20;

/// The generated bytes of a "fill" object (docs/protocol.md): SHA-256(seed ‖ uint64_be(0))
/// ‖ SHA-256(seed ‖ uint64_be(1)) ‖ ..., cut to "bytes".
fn fill_bytes(fill: &Value) -> R<Vec<u8>> {
    let Value::Object(fill) = fill else {
        return fail("field 'fill' must be an object {\"seed\": hex, \"bytes\": N}");
    };
    let seed = unhex(fill, "seed", true).or_else(|_| fail("field 'fill.seed' must be a hex string"))?;
    let n = match fill.get("bytes").and_then(Value::as_u64) {
        Some(n) if n <= MAX_FILL => n as usize,
        _ => {
            let given = fill.get("bytes").unwrap_or(&Value::Null);
            return fail(format!("field 'fill.bytes' must be an integer from 0 to {MAX_FILL}, got {given}"));
        }
    };
    let mut data = Vec::with_capacity(n + 32);
    for i in 0..n.div_ceil(32) as u64 {
        data.extend_from_slice(&Sha256::new().chain_update(&seed).chain_update(i.to_be_bytes()).finalize());
    }
    data.truncate(n);
    Ok(data)
}

// ------------------------------------------------------------------ the runner

struct Runner {
    reg: HashMap<String, Prim>,
    impls: Vec<Impl>,
}

fn check_lengths(p: &Prim, key: &[u8], iv: &[u8], aad: &[u8]) -> R<()> {
    if key.len() != p.key_bytes {
        return fail(format!("{} takes a {}-byte key, got {}", p.name, p.key_bytes, key.len()));
    }
    if iv.len() != p.iv_bytes {
        return fail(format!("{} takes a {}-byte IV/nonce, got {}", p.name, p.iv_bytes, iv.len()));
    }
    if !aad.is_empty() && p.kind != "aead" {
        return fail(format!("{} is not an AEAD and takes no associated data", p.name));
    }
    Ok(())
}

fn check_input(p: &Prim, n: usize) -> R<()> {
    if p.whole_blocks && n % p.block_bytes != 0 {
        return fail(format!("{} takes whole {}-byte blocks (no padding), got {} bytes", p.name, p.block_bytes, n));
    }
    Ok(())
}

/// The optional "chunks" field: lengths of consecutive update calls, then one call for the rest.
fn chunk_parts(req: &Map<String, Value>, p: &Prim, n: usize) -> R<(Vec<usize>, bool)> {
    let v = match req.get("chunks") {
        None | Some(Value::Null) => return Ok((if n > 0 { vec![n] } else { vec![] }, false)),
        Some(v) => v,
    };
    let list = v.as_array().ok_or_else(|| Ans::Fail("field 'chunks' must be a list of byte counts".into()))?;
    let (mut parts, mut sum) = (Vec::new(), 0usize);
    for x in list {
        let len = match x.as_u64() {
            Some(l) if l > 0 => l as usize,
            _ => return fail("field 'chunks' must hold positive byte counts"),
        };
        if p.whole_blocks && len % p.block_bytes != 0 {
            return fail(format!("{} takes whole {}-byte blocks: chunk of {} bytes", p.name, p.block_bytes, len));
        }
        if len > n - sum {
            return fail(format!("chunks add up to more than the {n}-byte input"));
        }
        sum += len;
        parts.push(len);
    }
    if sum < n {
        parts.push(n - sum);
    }
    Ok((parts, true))
}

fn lib<T>(p: &Prim, r: Result<T, String>) -> R<T> {
    r.map_err(|e| Ans::Fail(format!("{}: the library refused: {e}", p.name)))
}

fn bump(iv: &mut [u8]) {
    for b in iv.iter_mut().rev() {
        *b = b.wrapping_add(1);
        if *b != 0 {
            break;
        }
    }
}

thread_local! {
    // The bench request's stack_offset while its batches run (docs/protocol.md, "bench").
    static STACK_OFFSET: std::cell::Cell<Option<usize>> = const { std::cell::Cell::new(None) };
    // Where the last placed batch's frame landed within its page (reported as stack_at).
    static STACK_AT: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

thread_local! {
    // The bench request's probe (docs/protocol.md, "bench"): thousands of additions run as a
    // serial chain and as four parallel chains on both sides of every batch; 0: none asked.
    static PROBE_K: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    // (serial ns, parallel ns, preemptions()) of each reading: one before the first batch, one after each.
    static PROBES: std::cell::RefCell<Vec<(u64, u64, Option<u64>)>> = const { std::cell::RefCell::new(Vec::new()) };
}

// 1000 x k dependent register-register additions: one core cycle each.
#[inline(never)]
fn serial_adds(k: u64) {
    let mut x: u64 = 0;
    for _ in 0..k {
        #[cfg(target_arch = "x86_64")]
        unsafe {
            std::arch::asm!(".rept 1000", "add {x}, {one}", ".endr", x = inout(reg) x, one = in(reg) 1u64,
                            options(nomem, nostack));
        }
        #[cfg(not(target_arch = "x86_64"))]
        for _ in 0..1000 {
            x = std::hint::black_box(x + 1);
        }
    }
    std::hint::black_box(x);
}

// The same additions as four independent chains, interleaved: how many the core runs at once.
#[inline(never)]
fn parallel_adds(k: u64) {
    let (mut a, mut b, mut c, mut d): (u64, u64, u64, u64) = (0, 0, 0, 0);
    for _ in 0..k {
        #[cfg(target_arch = "x86_64")]
        unsafe {
            std::arch::asm!(".rept 250", "add {a}, {one}", "add {b}, {one}", "add {c}, {one}", "add {d}, {one}",
                            ".endr", a = inout(reg) a, b = inout(reg) b, c = inout(reg) c, d = inout(reg) d,
                            one = in(reg) 1u64, options(nomem, nostack));
        }
        #[cfg(not(target_arch = "x86_64"))]
        for _ in 0..250 {
            (a, b, c, d) = std::hint::black_box((a + 1, b + 1, c + 1, d + 1));
        }
    }
    std::hint::black_box((a, b, c, d));
}

// One reading: each chain twice, the faster run kept (a preemption is one gap, in one of them),
// then the thread's involuntary context switches so far, on the thread that times the batches.
fn probe_reading(k: u64) -> (u64, u64, Option<u64>) {
    let fastest = |chain: fn(u64)| {
        (0..2).map(|_| { let t0 = Instant::now(); chain(k); t0.elapsed().as_nanos() as u64 }).min().unwrap_or(0)
    };
    let (serial, parallel) = (fastest(serial_adds), fastest(parallel_adds));
    (serial, parallel, preemptions())
}

// The calling thread's involuntary context switches so far, as engine/src/probe.c's
// cb_preemptions reads them (getrusage(2), RUSAGE_THREAD, ru_nivcsw); None where the system
// cannot tell. The crate has no libc dependency, so getrusage is declared here: struct rusage
// is two struct timevals and then fourteen longs, ru_nivcsw the last, and on Linux each of
// those fields (time_t and suseconds_t too) is a C long, so it reads as eighteen longs.
#[cfg(target_os = "linux")]
fn preemptions() -> Option<u64> {
    use std::ffi::{c_int, c_long};
    #[repr(C)]
    struct Rusage([c_long; 18]);
    extern "C" {
        fn getrusage(who: c_int, usage: *mut Rusage) -> c_int;
    }
    const RUSAGE_THREAD: c_int = 1; // linux/resource.h
    let mut usage = Rusage([0; 18]);
    // SAFETY: getrusage writes one struct rusage, the size of Rusage, into it
    (unsafe { getrusage(RUSAGE_THREAD, &mut usage) } == 0).then(|| usage.0[17] as u64)
}

#[cfg(not(target_os = "linux"))]
fn preemptions() -> Option<u64> {
    None
}

fn timed(f: impl FnOnce()) -> u64 {
    let k = PROBE_K.with(|c| c.get());
    if k == 0 {
        return timed_placed(f);
    }
    if PROBES.with(|p| p.borrow().is_empty()) {
        let r = probe_reading(k);
        PROBES.with(|p| p.borrow_mut().push(r));
    }
    let ns = timed_placed(f);
    let r = probe_reading(k);
    PROBES.with(|p| p.borrow_mut().push(r));
    ns
}

fn timed_placed(f: impl FnOnce()) -> u64 {
    let mut f = Some(f);
    let mut ns = 0;
    let mut run = || {
        let frame = 0u8;
        STACK_AT.with(|c| c.set(std::hint::black_box(&frame) as *const u8 as usize & 4095));
        let t0 = Instant::now();
        (f.take().expect("timed once"))();
        ns = t0.elapsed().as_nanos() as u64;
    };
    match STACK_OFFSET.with(|c| c.get()) {
        Some(offset) => at_stack_offset(offset, &mut run),
        None => run(),
    }
    ns
}

// Runs f with the stack moved down so that it sits at `offset` (0..4095, in 16-byte steps)
// within its 4096-byte page, up to a fixed rotation (the frames in between). Address-space
// randomisation otherwise leaves each process one random placement for its life, and
// where the library's stack blocks fall against its buffers moves RustCrypto's AES-CTR by
// a fifth either way (engine/src/stack.h says more). Stable Rust has no alloca: the gap is
// two nested frames holding arrays, 16 x 256 bytes and 16 x 16 bytes to choose from.
fn at_stack_offset(offset: usize, f: &mut dyn FnMut()) {
    let here = 0u8;
    let pos = std::hint::black_box(&here) as *const u8 as usize & 4095;
    let gap = (pos.wrapping_sub(offset) & 4095) & !15;
    let fine = (gap % 256) / 16;
    let mut inner = || match fine {
        0 => gap_of::<0>(f), 1 => gap_of::<16>(f), 2 => gap_of::<32>(f), 3 => gap_of::<48>(f),
        4 => gap_of::<64>(f), 5 => gap_of::<80>(f), 6 => gap_of::<96>(f), 7 => gap_of::<112>(f),
        8 => gap_of::<128>(f), 9 => gap_of::<144>(f), 10 => gap_of::<160>(f), 11 => gap_of::<176>(f),
        12 => gap_of::<192>(f), 13 => gap_of::<208>(f), 14 => gap_of::<224>(f), _ => gap_of::<240>(f),
    };
    match gap / 256 {
        0 => gap_of::<0>(&mut inner), 1 => gap_of::<256>(&mut inner), 2 => gap_of::<512>(&mut inner),
        3 => gap_of::<768>(&mut inner), 4 => gap_of::<1024>(&mut inner), 5 => gap_of::<1280>(&mut inner),
        6 => gap_of::<1536>(&mut inner), 7 => gap_of::<1792>(&mut inner), 8 => gap_of::<2048>(&mut inner),
        9 => gap_of::<2304>(&mut inner), 10 => gap_of::<2560>(&mut inner), 11 => gap_of::<2816>(&mut inner),
        12 => gap_of::<3072>(&mut inner), 13 => gap_of::<3328>(&mut inner), 14 => gap_of::<3584>(&mut inner),
        _ => gap_of::<3840>(&mut inner),
    }
}

#[inline(never)]
fn gap_of<const N: usize>(f: &mut dyn FnMut()) {
    let gap = [0u8; N];
    std::hint::black_box(&gap); // kept on the stack, below this frame's caller
    f();
    std::hint::black_box(&gap);
}

fn result(ns: Vec<u64>) -> Value {
    let mut r = json!({"status": "ok", "ns": ns, "tsc": null, "core_cycles": null});
    let probes = PROBES.with(|p| std::mem::take(&mut *p.borrow_mut()));
    if !probes.is_empty() {
        r["probe_cycles"] = json!(PROBE_K.with(|c| c.get()) * 1000);
        r["probe_ns"] = json!(probes.iter().map(|p| p.0).collect::<Vec<_>>());
        r["probe_parallel_ns"] = json!(probes.iter().map(|p| p.1).collect::<Vec<_>>());
        if let Some(switches) = probes.iter().map(|p| p.2).collect::<Option<Vec<_>>>() {
            r["probe_switches"] = json!(switches);
        }
    }
    if let Some(offset) = STACK_OFFSET.with(|c| c.get()) {
        r["stack_offset"] = json!(offset); // honoured: echoed, with where the last batch landed
        r["stack_at"] = json!(STACK_AT.with(|c| c.get()));
    }
    r
}

// Sets STACK_OFFSET and PROBE_K for one bench request and clears them when dropped, however the
// request ends.
struct StackOffset;

impl StackOffset {
    fn set(req: &Map<String, Value>) -> R<StackOffset> {
        let offset = match req.get("stack_offset") {
            None | Some(Value::Null) => None,
            Some(_) => Some(count(req, "stack_offset", 0, false)?),
        };
        if offset.is_some_and(|o| o > 4095) {
            return fail("stack_offset must be in 0..4095");
        }
        let probe = match req.get("probe") {
            None | Some(Value::Null) => 0,
            Some(_) => count(req, "probe", 0, false)?,
        };
        if probe > 100_000 {
            return fail("probe must be in 0..100000");
        }
        STACK_OFFSET.with(|c| c.set(offset.map(|o| o as usize)));
        PROBE_K.with(|c| c.set(probe));
        PROBES.with(|p| p.borrow_mut().clear());
        Ok(StackOffset)
    }
}

impl Drop for StackOffset {
    fn drop(&mut self) {
        STACK_OFFSET.with(|c| c.set(None));
        PROBE_K.with(|c| c.set(0));
        PROBES.with(|p| p.borrow_mut().clear());
    }
}

impl Runner {
    fn hello(&self) -> Value {
        let impls: Vec<Value> = self
            .impls
            .iter()
            .map(|im| {
                let prims: Vec<Value> =
                    im.entries.iter().map(|e| match &e.features {
                        Some(f) => json!({"name": e.prim.name, "provider": e.provider, "features": f}),
                        None => json!({"name": e.prim.name, "provider": e.provider}),
                    }).collect();
                json!({"name": im.name, "library": im.library, "version": im.version, "available": true,
                       "primitives": prims, "notes": im.notes})
            })
            .collect();
        json!({"status": "ok", "protocol": 1, "runner": "rust", "language": "Rust", "jit": false,
               "runtime": format!("rustc {} (release: opt-level 3, codegen-units 1, lto thin)", env!("CB_RUSTC_VERSION")),
               "clocks": {"monotonic": "std::time::Instant (CLOCK_MONOTONIC)", "tsc": null, "core_cycles": null},
               "implementations": impls})
    }

    fn target(&self, req: &Map<String, Value>) -> R<&Entry> {
        let iname = string(req, "impl")?;
        let pname = string(req, "primitive")?;
        if !self.reg.contains_key(&pname) {
            return fail(format!("unknown primitive '{pname}' (not in the registry)"));
        }
        let im = match self.impls.iter().find(|im| im.name == iname) {
            Some(im) => im,
            None => return fail(format!("unknown implementation '{iname}'")),
        };
        im.entries
            .iter()
            .find(|e| e.prim.name == pname)
            .ok_or_else(|| Ans::Unsupported(format!("{iname} does not offer {pname}")))
    }

    fn crypt(&self, req: &Map<String, Value>, enc: bool) -> R<Value> {
        let e = self.target(req)?;
        let p = &e.prim;
        if p.kind == "hash" {
            return fail(format!("{} is a hash: use op 'hash'", p.name));
        }
        if req.get("inplace") == Some(&Value::Bool(true)) {
            return Err(Ans::Unsupported("this runner does not offer in-place operation ('inplace')".into()));
        }
        let (key, iv, aad) = (unhex(req, "key", false)?, unhex(req, "iv", false)?, unhex(req, "aad", false)?);
        let mut data = unhex(req, "input", true)?;
        check_lengths(p, &key, &iv, &aad)?;
        match &e.kind {
            Kind::Aead(new) => {
                if !enc && data.len() < p.tag_bytes {
                    return fail(format!("{} decryption input must end with the {}-byte tag", p.name, p.tag_bytes));
                }
                let n = data.len() - if enc { 0 } else { p.tag_bytes };
                let (parts, chunked) = chunk_parts(req, p, n)?;
                if parts.len() > 1 {
                    return Err(Ans::Unsupported(format!(
                        "{} is one call per message in these Rust AEAD APIs: it cannot take the input in chunks",
                        p.name
                    )));
                }
                let a = lib(p, new(&key))?;
                let mut r = json!({"status": "ok"});
                if chunked {
                    r["chunked"] = json!(true);
                }
                if enc {
                    let mut tag = vec![0u8; p.tag_bytes];
                    a.seal(&iv, &aad, &mut data, &mut tag);
                    data.extend_from_slice(&tag);
                    r["output"] = json!(hex(&data));
                    return Ok(r);
                }
                let mut out = vec![0u8; n];
                let ok = a.open(&iv, &aad, &data[..n], &data[n..], &mut out);
                r["authentic"] = json!(ok);
                if ok {
                    r["output"] = json!(hex(&out));
                }
                Ok(r)
            }
            Kind::Cipher(new) => {
                check_input(p, data.len())?;
                let (parts, chunked) = chunk_parts(req, p, data.len())?;
                if let (true, Some(why)) = (parts.len() > 1, &e.one_call) {
                    return Err(Ans::Unsupported(format!("{}: {why}, so it cannot take the input in chunks", p.name)));
                }
                let k = lib(p, new(&key, enc))?;
                let mut x = lib(p, k.start(&iv))?;
                let mut at = 0;
                for len in parts {
                    x(&mut data[at..at + len]);
                    at += len;
                }
                let mut r = json!({"status": "ok", "output": hex(&data)});
                if chunked {
                    r["chunked"] = json!(true);
                }
                Ok(r)
            }
            Kind::Hash(_) => unreachable!(),
        }
    }

    /// encrypt/decrypt with the optional "fill" and "digest" fields of docs/protocol.md
    /// around `crypt`: with "fill" {"seed", "bytes": N} the input is N generated bytes
    /// (`fill_bytes`) followed by the bytes of "input"; with "digest" "sha256" the answer
    /// carries "output_sha256", the SHA-256 of the output, instead of "output".
    fn crypt_filled(&self, req: &Map<String, Value>, enc: bool) -> R<Value> {
        let digest = req.get("digest");
        if digest.is_some_and(|d| *d != "sha256") {
            return fail("field 'digest' must be \"sha256\" (the only digest accepted)");
        }
        let mut r = match req.get("fill") {
            None => self.crypt(req, enc)?,
            Some(fill) => {
                let mut data = fill_bytes(fill)?;
                data.extend_from_slice(&unhex(req, "input", true)?);
                let mut whole = req.clone();
                whole.insert("input".into(), json!(hex(&data))); // crypt reads the whole input here
                let mut r = self.crypt(&whole, enc)?;
                r["filled"] = json!(true);
                r
            }
        };
        if let (Some(_), Some(obj)) = (digest, r.as_object_mut()) {
            if obj.contains_key("output") { // absent for a rejected forgery: no digest either
                let out = unhex(obj, "output", true)?;
                obj.remove("output");
                obj.insert("output_sha256".into(), json!(hex(&Sha256::digest(&out))));
            }
        }
        Ok(r)
    }

    fn hash_once(&self, req: &Map<String, Value>) -> R<Value> {
        let e = self.target(req)?;
        let p = &e.prim;
        let Kind::Hash(new) = &e.kind else {
            return fail(format!("{} is not a hash: use encrypt/decrypt", p.name));
        };
        let data = unhex(req, "input", true)?;
        let mut h = new();
        h.update(&data);
        Ok(json!({"status": "ok", "output": hex(&h.finish())}))
    }

    fn bench(&self, req: &Map<String, Value>) -> R<Value> {
        let e = self.target(req)?;
        let p = &e.prim;
        let op = string(req, "operation")?;
        let workload = if req.contains_key("workload") { string(req, "workload")? } else { "bulk".into() };
        let size = count(req, "size", 0, op != "keysetup" && op != "keysetup-decrypt")?;
        let loops = count(req, "loops", 0, true)?;
        let batches = count(req, "batches", 1, false)?;
        if loops == 0 || batches == 0 {
            return fail("loops and batches must be at least 1");
        }
        if batches > 100000 {
            return fail("at most 100000 batches per request");
        }
        if size > 1 << 30 {
            return fail("size is limited to 1 GiB");
        }
        // docs/protocol.md "bench": caps far above any calibrated batch, so an absurd count is
        // refused instead of running until the orchestrator's timeout (loops first: the
        // product then cannot overflow)
        if loops > MAX_LOOPS {
            return fail(format!("loops must be at most {MAX_LOOPS}"));
        }
        if loops * size.max(1) > MAX_BATCH_BYTES {
            return fail("loops x size must be at most 2^36 bytes per batch");
        }
        if !["bulk", "message", "rekey"].contains(&workload.as_str()) {
            return fail(format!("unknown workload '{workload}'; accepted: bulk, message, rekey"));
        }
        let _placed = StackOffset::set(req)?;
        let size = size as usize;
        let mut buf: Vec<u8> = (0..size).map(|i| i as u8).collect();
        let mut out = vec![0u8; size];
        let mut ns = Vec::with_capacity(batches as usize);

        if let Kind::Hash(new) = &e.kind {
            if op != "hash" {
                return fail(format!("{} is a hash: operation must be 'hash'", p.name));
            }
            if workload == "rekey" {
                return fail("hashes have no key: use workload bulk or message");
            }
            let mut h = new();
            for _ in 0..batches {
                if workload == "bulk" {
                    ns.push(timed(|| {
                        for _ in 0..loops {
                            h.update(&buf);
                        }
                    }));
                    h.finish();
                } else {
                    ns.push(timed(|| {
                        for _ in 0..loops {
                            h.update(&buf);
                            std::hint::black_box(h.finish());
                        }
                    }));
                }
            }
            return Ok(result(ns));
        }

        let (key, mut iv, aad) = (unhex(req, "key", false)?, unhex(req, "iv", false)?, unhex(req, "aad", false)?);
        check_lengths(p, &key, &iv, &aad)?;
        if op == "keysetup" || op == "keysetup-decrypt" {
            let enc = op == "keysetup";
            if let Some(why) = &e.no_keysetup {
                return Err(Ans::Unsupported(why.clone()));
            }
            match &e.kind {
                Kind::Cipher(new) => {
                    lib(p, new(&key, enc).map(|_| ()))?;
                    for _ in 0..batches {
                        ns.push(timed(|| {
                            for _ in 0..loops {
                                std::hint::black_box(new(std::hint::black_box(&key), enc).ok());
                            }
                        }));
                    }
                }
                Kind::Aead(new) => {
                    lib(p, new(&key).map(|_| ()))?;
                    for _ in 0..batches {
                        ns.push(timed(|| {
                            for _ in 0..loops {
                                std::hint::black_box(new(std::hint::black_box(&key)).ok());
                            }
                        }));
                    }
                }
                Kind::Hash(_) => unreachable!(),
            }
            return Ok(result(ns));
        }
        check_input(p, size)?;
        if !["encrypt", "decrypt", "decrypt-forged"].contains(&op.as_str()) {
            return fail(format!(
                "unknown operation '{op}'; accepted: encrypt, decrypt, decrypt-forged, keysetup, keysetup-decrypt, hash"
            ));
        }
        let forged = op == "decrypt-forged";
        let enc = op == "encrypt";
        let rekey = workload == "rekey";
        match &e.kind {
            Kind::Aead(new) => {
                let mut a = lib(p, new(&key))?;
                let mut tag = vec![0u8; p.tag_bytes];
                if enc {
                    // One-shot AEAD APIs: in the bulk workload every call is a whole seal under the same nonce.
                    for _ in 0..batches {
                        ns.push(timed(|| {
                            for _ in 0..loops {
                                if rekey {
                                    a = new(&key).unwrap();
                                }
                                a.seal(&iv, &aad, &mut buf, &mut tag);
                                if workload != "bulk" {
                                    bump(&mut iv);
                                }
                            }
                        }));
                    }
                    return Ok(result(ns));
                }
                // A valid ciphertext and tag to open, made once outside the timing.
                a.seal(&iv, &aad, &mut buf, &mut tag);
                if forged {
                    tag[0] ^= 1;
                }
                let mut accepted = 0u64;
                for _ in 0..batches {
                    ns.push(timed(|| {
                        for _ in 0..loops {
                            if rekey {
                                a = new(&key).unwrap();
                            }
                            accepted += a.open(&iv, &aad, &buf, &tag, &mut out) as u64;
                        }
                    }));
                }
                let expect = if forged { 0 } else { loops * batches };
                if accepted != expect {
                    let what = if forged { "forged messages were accepted" } else { "valid messages were accepted" };
                    return fail(format!("{}: {} of {} {}", p.name, accepted, loops * batches, what));
                }
                Ok(result(ns))
            }
            Kind::Cipher(new) => {
                if forged {
                    return fail("decrypt-forged applies to AEADs only");
                }
                let mut k = lib(p, new(&key, enc))?;
                lib(p, k.start(&iv).map(|_| ()))?;
                for _ in 0..batches {
                    if workload == "bulk" {
                        let mut x = k.start(&iv).unwrap();
                        ns.push(timed(|| {
                            for _ in 0..loops {
                                x(&mut buf);
                            }
                        }));
                    } else {
                        ns.push(timed(|| {
                            for _ in 0..loops {
                                if rekey {
                                    k = new(&key, enc).unwrap();
                                }
                                let mut x = k.start(&iv).unwrap();
                                x(&mut buf); // in place (no tag to keep valid)
                                if enc {
                                    bump(&mut iv);
                                }
                            }
                        }));
                    }
                }
                Ok(result(ns))
            }
            Kind::Hash(_) => unreachable!(),
        }
    }

    /// ct-sample (docs/protocol.md): single encryptions of a fixed and a random class,
    /// interleaved in an order drawn from the seed, each timed alone with Instant. Cipher
    /// contexts are keyed per call for vary "key", once for "plaintext"; each call starts
    /// the message with the IV and runs the whole input (AEADs: seal, tag included).
    fn ct_sample(&self, req: &Map<String, Value>) -> R<Value> {
        let e = self.target(req)?;
        let p = &e.prim;
        if p.kind == "hash" {
            return Err(Ans::Unsupported(format!("{} is a hash: ct-sample times ciphers", p.name)));
        }
        let vary = string(req, "vary")?;
        if vary != "key" && vary != "plaintext" {
            return fail("vary must be 'key' or 'plaintext'");
        }
        let (samples, seed) = (count(req, "samples", 0, true)?, count(req, "seed", 0, true)?);
        if !(2..=1_000_000).contains(&samples) {
            return fail("samples must be in 2..1000000");
        }
        let (key, iv, aad) = (unhex(req, "key", true)?, unhex(req, "iv", false)?, unhex(req, "aad", false)?);
        let msg = unhex(req, "input", true)?;
        check_lengths(p, &key, &iv, &aad)?;
        if msg.is_empty() || msg.len() > 65536 {
            return fail("input must be 1 to 65536 bytes");
        }
        check_input(p, msg.len())?;
        // splitmix64 (Steele, Lea, Flood, OOPSLA 2014): class order and random inputs
        let mut state = seed;
        let mut next = move || {
            state = state.wrapping_add(0x9e3779b97f4a7c15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58476d1ce4e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d049bb133111eb);
            z ^ (z >> 31)
        };
        let by_key = vary == "key";
        let fixed = if by_key { &key } else { &msg };
        let classes: Vec<u8> = (0..samples).map(|_| (next() >> 63) as u8).collect();
        let inputs: Vec<Vec<u8>> = classes
            .iter()
            .map(|&c| if c == 1 { (0..fixed.len()).map(|_| (next() >> 56) as u8).collect() } else { fixed.clone() })
            .collect();
        let mut buf = msg.clone();
        let mut tag = vec![0u8; p.tag_bytes];
        let mut call: Box<dyn FnMut(&[u8]) -> Result<(), String> + '_> = match &e.kind {
            Kind::Cipher(new) => {
                let fixed_ctx = if by_key { None } else { Some(lib(p, new(&key, true))?) };
                Box::new(move |x: &[u8]| {
                    if by_key {
                        let k = new(x, true)?;
                        buf.copy_from_slice(&msg);
                        (k.start(&iv)?)(&mut buf);
                    } else {
                        buf.copy_from_slice(x);
                        (fixed_ctx.as_ref().expect("keyed").start(&iv)?)(&mut buf);
                    }
                    Ok(())
                })
            }
            Kind::Aead(new) => {
                let fixed_ctx = if by_key { None } else { Some(lib(p, new(&key))?) };
                Box::new(move |x: &[u8]| {
                    if by_key {
                        buf.copy_from_slice(&msg);
                        new(x)?.seal(&iv, &aad, &mut buf, &mut tag);
                    } else {
                        buf.copy_from_slice(x);
                        fixed_ctx.as_ref().expect("keyed").seal(&iv, &aad, &mut buf, &mut tag);
                    }
                    Ok(())
                })
            }
            Kind::Hash(_) => unreachable!(),
        };
        for x in inputs.iter().take(1000) {
            lib(p, call(x))?; // warm-up, untimed
        }
        let mut times = Vec::with_capacity(inputs.len());
        for x in &inputs {
            let t0 = Instant::now();
            let r = call(x);
            times.push(t0.elapsed().as_nanos() as u64);
            lib(p, r)?;
        }
        Ok(json!({"status": "ok", "vary": vary, "samples": samples, "timer": "std::time::Instant ns",
                  "classes": classes, "times": times}))
    }

    fn handle(&self, req: &Map<String, Value>) -> R<Value> {
        let op = string(req, "op")?;
        match op.as_str() {
            "hello" => Ok(self.hello()),
            "encrypt" | "decrypt" => self.crypt_filled(req, op == "encrypt"),
            "hash" => self.hash_once(req),
            "bench" => self.bench(req),
            "cpu-clock" => Err(Ans::Unsupported("the Rust runner has no cpu-clock".into())),
            "ct-sample" => self.ct_sample(req),
            _ => fail(format!("unknown op '{op}'; accepted: hello, encrypt, decrypt, hash, bench, cpu-clock, ct-sample, quit")),
        }
    }
}

/// Caps on one bench request (docs/protocol.md, "bench").
const MAX_LOOPS: u64 = 1_000_000_000;
const MAX_BATCH_BYTES: u64 = 1 << 36;

fn main() {
    let registry = load_registry();
    let runner = match &registry {
        Ok(list) => Some(Runner {
            reg: list.iter().map(|p| (p.name.clone(), p.clone())).collect(),
            impls: impls::build(list),
        }),
        Err(e) => {
            eprintln!("rust runner: cannot read the registry: {e}");
            None
        }
    };
    let stdin = std::io::stdin();
    let mut stdout = std::io::stdout().lock();
    let mut line = Vec::new();
    let mut input = stdin.lock();
    loop {
        line.clear();
        match input.read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        let text = String::from_utf8_lossy(&line);
        let mut id = Value::Null;
        let parsed = if text.trim().is_empty() {
            Err("blank line: a request must be a JSON object".to_string()) // every line is answered
        } else {
            serde_json::from_str::<Value>(&text).map_err(|e| format!("malformed request: not JSON ({e})"))
        };
        let resp: R<Value> = match parsed {
            Err(e) => fail(e),
            Ok(Value::Object(req)) => {
                id = req.get("id").cloned().unwrap_or(Value::Null);
                if req.get("op").and_then(Value::as_str) == Some("quit") {
                    break;
                }
                match &runner {
                    None => fail(format!(
                        "the runner cannot read the registry (run runners/rust/build.sh): {}",
                        registry.as_ref().err().unwrap()
                    )),
                    Some(r) => std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| r.handle(&req)))
                        .unwrap_or_else(|_| fail("internal error: the library panicked")),
                }
            }
            Ok(_) => fail("a request must be a JSON object"),
        };
        let mut v = match resp {
            Ok(v) => v,
            Err(Ans::Fail(m)) => json!({"status": "error", "message": m}),
            Err(Ans::Unsupported(m)) => json!({"status": "unsupported", "message": m}),
        };
        v["id"] = id;
        if writeln!(stdout, "{v}").and_then(|_| stdout.flush()).is_err() {
            break;
        }
    }
}
