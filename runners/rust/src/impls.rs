//! The Rust runner's implementations and the one table mapping canonical registry
//! names to crate types: `rustcrypto_entry` (the match on cipher id and key size,
//! streams, AEADs, hashes), `ring_entry` and `awslc_entry`.
use crate::{crate_version, AeadKeyed, Entry, HashCtx, Impl, Keyed, Kind, Prim, Xform};
use serde_json::{json, Map, Value};
use std::marker::PhantomData;

use aes_gcm::aead::{AeadInOut, Nonce, Tag};
use cipher::consts::{U12, U16, U8};
use cipher::inout::InOutBuf;
use cipher::{BlockCipherDecrypt, BlockCipherEncrypt, BlockModeDecrypt, BlockModeEncrypt, BlockSizeUser};
use cipher::{InnerIvInit, KeyInit, KeyIvInit, StreamCipher};
use digest::{Digest, ExtendableOutputReset, Update};

fn cpu_has(flag: &str) -> bool {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("flags")).map(|l| format!(" {l} ").contains(&format!(" {flag} "))))
        .unwrap_or(false)
}

fn err(e: impl std::fmt::Display) -> String {
    e.to_string()
}

// ====================================================================== RustCrypto block modes

#[derive(Clone, Copy, PartialEq)]
enum Mode {
    Ecb,
    Cbc,
    Cfb,
    Ofb,
    Ctr,
}

type CtrFn<C> = for<'a> fn(&'a C, &[u8]) -> Result<Xform<'a>, String>;

/// A keyed RustCrypto block cipher in one mode and direction. Modes run over
/// `&C`, so a message's mode object borrows the key schedule (no copy).
struct Rc<C> {
    c: C,
    enc: bool,
    mode: Mode,
    ctr: Option<CtrFn<C>>,
}

impl<C: BlockCipherEncrypt + BlockCipherDecrypt + 'static> Keyed for Rc<C>
where
    C::BlockSize: block_buffer::BlockSizes,
{
    fn start<'a>(&'a self, iv: &[u8]) -> Result<Xform<'a>, String> {
        let c = &self.c;
        Ok(match (self.mode, self.enc) {
            (Mode::Ecb, true) => Box::new(move |buf: &mut [u8]| {
                let (blocks, _) = InOutBuf::from(buf).into_chunks();
                c.encrypt_blocks_inout(blocks);
            }),
            (Mode::Ecb, false) => Box::new(move |buf: &mut [u8]| {
                let (blocks, _) = InOutBuf::from(buf).into_chunks();
                c.decrypt_blocks_inout(blocks);
            }),
            (Mode::Cbc, true) => {
                let mut m = cbc::Encryptor::<&C>::inner_iv_slice_init(c, iv).map_err(err)?;
                Box::new(move |buf: &mut [u8]| {
                    let (blocks, _) = InOutBuf::from(buf).into_chunks();
                    m.encrypt_blocks_inout(blocks);
                })
            }
            (Mode::Cbc, false) => {
                let mut m = cbc::Decryptor::<&C>::inner_iv_slice_init(c, iv).map_err(err)?;
                Box::new(move |buf: &mut [u8]| {
                    let (blocks, _) = InOutBuf::from(buf).into_chunks();
                    m.decrypt_blocks_inout(blocks);
                })
            }
            (Mode::Cfb, true) => {
                let mut m = cfb_mode::BufEncryptor::<&C>::inner_iv_slice_init(c, iv).map_err(err)?;
                Box::new(move |buf: &mut [u8]| m.encrypt(buf))
            }
            (Mode::Cfb, false) => {
                let mut m = cfb_mode::BufDecryptor::<&C>::inner_iv_slice_init(c, iv).map_err(err)?;
                Box::new(move |buf: &mut [u8]| m.decrypt(buf))
            }
            (Mode::Ofb, _) => {
                let core = ofb::OfbCore::<&C>::inner_iv_slice_init(c, iv).map_err(err)?;
                let mut m = cipher::StreamCipherCoreWrapper::from_core(core);
                Box::new(move |buf: &mut [u8]| m.apply_keystream(buf))
            }
            (Mode::Ctr, _) => (self.ctr.ok_or("no CTR for this block size")?)(c, iv)?,
        })
    }
}

fn ctr128<'a, C: BlockCipherEncrypt + BlockSizeUser<BlockSize = U16>>(c: &'a C, iv: &[u8]) -> Result<Xform<'a>, String> {
    let core = ctr::CtrCore::<&C, ctr::flavors::Ctr128BE>::inner_iv_slice_init(c, iv).map_err(err)?;
    let mut m = cipher::StreamCipherCoreWrapper::from_core(core);
    Ok(Box::new(move |buf: &mut [u8]| m.apply_keystream(buf)))
}

fn ctr64<'a, C: BlockCipherEncrypt + BlockSizeUser<BlockSize = U8>>(c: &'a C, iv: &[u8]) -> Result<Xform<'a>, String> {
    let core = ctr::CtrCore::<&C, ctr::flavors::Ctr64BE>::inner_iv_slice_init(c, iv).map_err(err)?;
    let mut m = cipher::StreamCipherCoreWrapper::from_core(core);
    Ok(Box::new(move |buf: &mut [u8]| m.apply_keystream(buf)))
}

fn block_entry<C: BlockCipherEncrypt + BlockCipherDecrypt + 'static>(
    p: &Prim,
    ctor: fn(&[u8]) -> Result<C, String>,
    ctr: Option<CtrFn<C>>,
    provider: &str,
) -> Option<Entry>
where
    C::BlockSize: block_buffer::BlockSizes,
{
    let mode = match p.mode.as_str() {
        "ecb" => Mode::Ecb,
        "cbc" => Mode::Cbc,
        "cfb" => Mode::Cfb,
        "ofb" => Mode::Ofb,
        "ctr" if ctr.is_some() => Mode::Ctr,
        _ => return None,
    };
    Some(Entry {
        prim: p.clone(),
        provider: provider.into(),
        features: None,
        kind: Kind::Cipher(Box::new(move |key, enc| Ok(Box::new(Rc { c: ctor(key)?, enc, mode, ctr }) as Box<dyn Keyed>))),
        no_keysetup: None,
        one_call: None,
    })
}

// ====================================================================== RustCrypto AEADs

struct RcAead<G>(G);

impl<G: AeadInOut> AeadKeyed for RcAead<G> {
    fn seal(&self, iv: &[u8], aad: &[u8], buf: &mut [u8], tag: &mut [u8]) {
        let n = Nonce::<G>::try_from(iv).expect("nonce length checked");
        let t = self.0.encrypt_inout_detached(&n, aad, InOutBuf::from(buf)).expect("seal");
        tag.copy_from_slice(&t);
    }
    fn open(&self, iv: &[u8], aad: &[u8], ct: &[u8], tag: &[u8], out: &mut [u8]) -> bool {
        let n = Nonce::<G>::try_from(iv).expect("nonce length checked");
        let t = Tag::<G>::try_from(tag).expect("tag length checked");
        match InOutBuf::new(ct, out) {
            Ok(b) => self.0.decrypt_inout_detached(&n, aad, b, &t).is_ok(),
            Err(_) => false,
        }
    }
}

fn aead_entry<G: AeadInOut + KeyInit + 'static>(p: &Prim, provider: &str) -> Entry {
    Entry {
        prim: p.clone(),
        provider: provider.into(),
        features: None,
        kind: Kind::Aead(Box::new(|key| Ok(Box::new(RcAead(G::new_from_slice(key).map_err(err)?)) as Box<dyn AeadKeyed>))),
        no_keysetup: None,
        one_call: None,
    }
}

/// GCM over any 128-bit RustCrypto block cipher: the cipher is keyed with its own
/// key sizes (Twofish, Serpent, ... take several), then wrapped.
fn gcm_entry<C>(p: &Prim, provider: &str) -> Entry
where
    C: KeyInit + BlockCipherEncrypt + BlockSizeUser<BlockSize = U16> + 'static,
    aes_gcm::AesGcm<C, U12>: AeadInOut + From<C>,
{
    Entry {
        prim: p.clone(),
        provider: provider.into(),
        features: None,
        kind: Kind::Aead(Box::new(|key| {
            let c = C::new_from_slice(key).map_err(err)?;
            Ok(Box::new(RcAead(aes_gcm::AesGcm::<C, U12>::from(c))) as Box<dyn AeadKeyed>)
        })),
        no_keysetup: None,
        one_call: None,
    }
}

// ====================================================================== RustCrypto streams

struct Stream<S> {
    key: Vec<u8>,
    _s: PhantomData<fn() -> S>,
}

impl<S: KeyIvInit + StreamCipher + 'static> Keyed for Stream<S> {
    fn start<'a>(&'a self, iv: &[u8]) -> Result<Xform<'a>, String> {
        let mut s = S::new_from_slices(&self.key, iv).map_err(err)?;
        Ok(Box::new(move |buf: &mut [u8]| s.apply_keystream(buf)))
    }
}

fn stream_entry<S: KeyIvInit + StreamCipher + 'static>(p: &Prim, provider: &str) -> Entry {
    Entry {
        prim: p.clone(),
        provider: provider.into(),
        features: None,
        kind: Kind::Cipher(Box::new(|key, _| Ok(Box::new(Stream::<S> { key: key.to_vec(), _s: PhantomData }) as Box<dyn Keyed>))),
        one_call: None,
        no_keysetup: Some(format!(
            "{}: the RustCrypto stream API sets key and nonce together (new_from_slices); the message workload times it",
            p.name
        )),
    }
}

// ====================================================================== RustCrypto hashes

struct Dg<D>(D);
impl<D: Digest + digest::FixedOutputReset> HashCtx for Dg<D> {
    fn update(&mut self, data: &[u8]) {
        Digest::update(&mut self.0, data);
    }
    fn finish(&mut self) -> Vec<u8> {
        self.0.finalize_reset().to_vec()
    }
}
struct Xof<X>(X, usize);
impl<X: Update + ExtendableOutputReset> HashCtx for Xof<X> {
    fn update(&mut self, data: &[u8]) {
        Update::update(&mut self.0, data);
    }
    fn finish(&mut self) -> Vec<u8> {
        let mut out = vec![0u8; self.1];
        self.0.finalize_xof_reset_into(&mut out);
        out
    }
}
fn hash_entry<D: Digest + digest::FixedOutputReset + Default + 'static>(p: &Prim, provider: &str) -> Entry {
    Entry { prim: p.clone(), provider: provider.into(), features: None, kind: Kind::Hash(Box::new(|| Box::new(Dg(D::default())))), no_keysetup: None, one_call: None }
}
fn xof_entry<X: Update + ExtendableOutputReset + Default + 'static>(p: &Prim, provider: &str) -> Entry {
    let n = p.digest_bytes;
    Entry { prim: p.clone(), provider: provider.into(), features: None, kind: Kind::Hash(Box::new(move || Box::new(Xof(X::default(), n)))), no_keysetup: None, one_call: None }
}

// ====================================================================== the RustCrypto table

fn new_from<C: KeyInit>(k: &[u8]) -> Result<C, String> {
    C::new_from_slice(k).map_err(err)
}

/// The crates' own run-time choices (cpufeatures checks in aes 0.9, polyval 0.7, chacha20
/// 0.10, poly1305 0.9, sha1 0.11, sha2 0.11), read from the CPU's flags on x86-64.
struct CpuChoice {
    x86: bool,
    aes: bool,
    clmul: bool, // polyval's carry-less backend: AVX + PCLMULQDQ
    avx2: bool,
    sha: bool, // sha1/sha2's SHA-NI backends: SHA + SSE4.1 (+ SSSE3 for sha1)
}

impl CpuChoice {
    fn new() -> CpuChoice {
        let x86 = cfg!(target_arch = "x86_64");
        CpuChoice {
            x86,
            aes: x86 && cpu_has("aes"),
            clmul: x86 && cpu_has("avx") && cpu_has("pclmulqdq"),
            avx2: x86 && cpu_has("avx2"),
            sha: x86 && cpu_has("sha_ni") && cpu_has("sse4_1") && cpu_has("ssse3"),
        }
    }
}

/// The features of a RustCrypto path (docs/protocol.md, features); None off x86-64 for the
/// crates that choose a backend there (this runner does not follow their ARM choices).
fn rustcrypto_features(p: &Prim, rc: &CpuChoice) -> Option<Vec<&'static str>> {
    let fam = p.name.split('-').next().unwrap_or("");
    let one = |on: bool, f: &'static str| if on { vec![f] } else { vec!["portable"] };
    let dispatched = matches!(fam, "aes" | "chacha20" | "xchacha20" | "sha" | "sha1")
        || p.mode == "gcm"
        || p.name.starts_with("sha-");
    if dispatched && !rc.x86 {
        return None;
    }
    if p.mode == "gcm" {
        let mut f = if fam == "aes" && rc.aes { vec!["aes-ni"] } else { vec![] };
        if rc.clmul {
            f.push("pclmul");
        }
        return Some(if f.is_empty() { vec!["portable"] } else { f });
    }
    Some(match p.name.as_str() {
        _ if fam == "aes" => one(rc.aes, "aes-ni"),
        "chacha20" | "xchacha20" | "chacha20-poly1305" | "xchacha20-poly1305" => vec![if rc.avx2 { "avx2" } else { "sse2" }],
        "sha-1" | "sha-224" | "sha-256" => one(rc.sha, "sha-ni"),
        "sha-384" | "sha-512" | "sha-512-256" | "sha-512-224" => one(rc.avx2, "avx2"),
        _ => vec!["portable"],
    })
}

fn rustcrypto_entry(p: &Prim) -> Option<Entry> {
    let rc = CpuChoice::new();
    let mut e = rustcrypto_words(p, &rc)?;
    e.features = rustcrypto_features(p, &rc);
    Some(e)
}

fn rustcrypto_words(p: &Prim, rc: &CpuChoice) -> Option<Entry> {
    let aesni = rc.aes;
    let aes_prov = if aesni { "AES-NI (aes crate, detected at run time)" } else { "bitsliced software AES (aes crate fixslice)" };
    let ghash = if rc.clmul { "CLMUL GHASH (polyval crate)" } else { "software GHASH" };
    let gcm_prov = format!("{} + {ghash}", if aesni { "AES-NI" } else { "software AES" });
    let soft = "portable Rust";
    let shani = rc.sha;
    let fam = p.name.split('-').next().unwrap_or("");
    let kb: usize = p.name.split('-').nth(1).and_then(|b| b.parse().ok()).unwrap_or(0); // the number in the name

    // 128-bit-block ciphers: ecb cbc cfb ofb ctr (Ctr128BE: the whole IV block is the counter), and GCM.
    macro_rules! b128 {
        ($ty:ty, $prov:expr) => {{
            if p.mode == "gcm" {
                let prov = if fam == "aes" { gcm_prov.clone() } else { format!("aes-gcm crate's GCM over {}, {ghash}", $prov) };
                return Some(gcm_entry::<$ty>(p, &prov));
            }
            return block_entry::<$ty>(p, new_from::<$ty>, Some(ctr128::<$ty>), $prov);
        }};
    }
    macro_rules! b64 {
        ($ty:ty, $ctor:expr, $prov:expr) => {
            return block_entry::<$ty>(p, $ctor, Some(ctr64::<$ty>), $prov)
        };
    }
    macro_rules! bwide {
        ($ty:ty, $prov:expr) => {
            return block_entry::<$ty>(p, new_from::<$ty>, None, $prov)
        };
    }
    if matches!(p.kind.as_str(), "cipher" | "aead") && !p.mode.is_empty() {
        match (fam, kb) {
            ("aes", 128) => b128!(aes::Aes128, aes_prov),
            ("aes", 192) => b128!(aes::Aes192, aes_prov),
            ("aes", 256) => b128!(aes::Aes256, aes_prov),
            ("twofish", _) => b128!(
                twofish::Twofish,
                "portable Rust; recomputes the key-dependent S-boxes for every block (about 40x slower than other Twofish code: a known property of this crate)"
            ),
            ("serpent", _) => b128!(serpent::Serpent, soft),
            ("camellia", 128) => b128!(camellia::Camellia128, soft),
            ("camellia", 192) => b128!(camellia::Camellia192, soft),
            ("camellia", 256) => b128!(camellia::Camellia256, soft),
            ("aria", 128) => b128!(aria::Aria128, soft),
            ("aria", 192) => b128!(aria::Aria192, soft),
            ("aria", 256) => b128!(aria::Aria256, soft),
            ("sm4", _) => b128!(sm4::Sm4, soft),
            ("cast256", _) => b128!(cast6::Cast6, soft),
            ("rc6", 128) => b128!(rc6::RC6<u32, cipher::consts::U20, U16>, soft),
            ("rc6", 192) => b128!(rc6::RC6<u32, cipher::consts::U20, cipher::consts::U24>, soft),
            ("rc6", 256) => b128!(rc6::RC6<u32, cipher::consts::U20, cipher::consts::U32>, soft),
            ("des", _) => b64!(des::Des, new_from::<des::Des>, soft),
            ("3des", 112) => b64!(des::TdesEde2, new_from::<des::TdesEde2>, "portable Rust (two-key EDE)"),
            ("3des", 168) => b64!(des::TdesEde3, new_from::<des::TdesEde3>, soft),
            ("blowfish", _) => b64!(blowfish::Blowfish, new_from::<blowfish::Blowfish>, soft),
            ("cast5", _) => b64!(cast5::Cast5, new_from::<cast5::Cast5>, soft),
            ("idea", _) => b64!(idea::Idea, new_from::<idea::Idea>, soft),
            ("rc2", _) => b64!(rc2::Rc2, |k| Ok(rc2::Rc2::new_with_eff_key_len(k, k.len() * 8)), "portable Rust, effective key bits = key bits"),
            ("rc5", 128) => b64!(rc5::RC5<u32, cipher::consts::U12, U16>, new_from::<rc5::RC5<u32, cipher::consts::U12, U16>>, soft),
            // Not offered: the xtea crate reads little-endian words (the registry's XTEA is big-endian),
            // and magma's Gost89Test is big-endian (the registry's gost is little-endian words).
            ("magma", _) => b64!(magma::Magma, new_from::<magma::Magma>, "portable Rust (id-tc26-gost-28147-param-Z)"),
            ("threefish256", _) => bwide!(threefish::Threefish256, "portable Rust, zero tweak"),
            ("threefish512", _) => bwide!(threefish::Threefish512, "portable Rust, zero tweak"),
            ("threefish1024", _) => bwide!(threefish::Threefish1024, "portable Rust, zero tweak"),
            _ => return None,
        }
    }
    let simd = if rc.avx2 { "AVX2 (detected at run time)" } else { "SSE2" };
    let sha512 = if rc.avx2 { "AVX2 (sha2 crate, detected at run time)" } else { soft };
    let e = match p.name.as_str() {
        "chacha20" => stream_entry::<chacha20::ChaCha20>(p, &format!("chacha20 crate, {simd}")),
        "xchacha20" => stream_entry::<chacha20::XChaCha20>(p, &format!("chacha20 crate, {simd}")),
        "salsa20" => stream_entry::<salsa20::Salsa20>(p, "salsa20 crate, portable Rust"),
        "salsa20r12" => stream_entry::<salsa20::Salsa12>(p, "salsa20 crate (Salsa20/12), portable Rust"),
        "xsalsa20" => stream_entry::<salsa20::XSalsa20>(p, "salsa20 crate, portable Rust"),
        "chacha20-poly1305" => aead_entry::<chacha20poly1305::ChaCha20Poly1305>(p, &format!("chacha20 ({simd}) + poly1305 crates")),
        "xchacha20-poly1305" => aead_entry::<chacha20poly1305::XChaCha20Poly1305>(p, &format!("chacha20 ({simd}) + poly1305 crates")),
        "md4" => hash_entry::<md4::Md4>(p, soft),
        "md5" => hash_entry::<md5::Md5>(p, soft),
        "sha-1" => hash_entry::<sha1::Sha1>(p, if shani { "SHA-NI (sha1 crate, detected at run time)" } else { soft }),
        "sha-224" => hash_entry::<sha2::Sha224>(p, if shani { "SHA-NI (sha2 crate, detected at run time)" } else { soft }),
        "sha-256" => hash_entry::<sha2::Sha256>(p, if shani { "SHA-NI (sha2 crate, detected at run time)" } else { soft }),
        "sha-384" => hash_entry::<sha2::Sha384>(p, sha512),
        "sha-512" => hash_entry::<sha2::Sha512>(p, sha512),
        "sha-512-256" => hash_entry::<sha2::Sha512_256>(p, sha512),
        "sha-512-224" => hash_entry::<sha2::Sha512_224>(p, sha512),
        "keccak-224" => hash_entry::<sha3::Keccak224>(p, "portable Rust, original 0x01 padding"),
        "keccak-256" => hash_entry::<sha3::Keccak256>(p, "portable Rust, original 0x01 padding"),
        "keccak-384" => hash_entry::<sha3::Keccak384>(p, "portable Rust, original 0x01 padding"),
        "keccak-512" => hash_entry::<sha3::Keccak512>(p, "portable Rust, original 0x01 padding"),
        "sha3-224" => hash_entry::<sha3::Sha3_224>(p, soft),
        "sha3-256" => hash_entry::<sha3::Sha3_256>(p, soft),
        "sha3-384" => hash_entry::<sha3::Sha3_384>(p, soft),
        "sha3-512" => hash_entry::<sha3::Sha3_512>(p, soft),
        "shake128" => xof_entry::<shake::Shake128>(p, soft),
        "shake256" => xof_entry::<shake::Shake256>(p, soft),
        "blake2b-512" => hash_entry::<blake2::Blake2b512>(p, soft),
        "blake2b-256" => hash_entry::<blake2::Blake2b256>(p, soft),
        "blake2s-256" => hash_entry::<blake2::Blake2s256>(p, soft),
        "ripemd-160" => hash_entry::<ripemd::Ripemd160>(p, soft),
        "whirlpool" => hash_entry::<whirlpool::Whirlpool>(p, soft),
        "sm3" => hash_entry::<sm3::Sm3>(p, soft),
        "tiger" => hash_entry::<tiger::Tiger>(p, soft),
        _ => return None,
    };
    Some(e)
}

// ====================================================================== ring

struct RingAead(ring::aead::LessSafeKey);
impl AeadKeyed for RingAead {
    fn seal(&self, iv: &[u8], aad: &[u8], buf: &mut [u8], tag: &mut [u8]) {
        let n = ring::aead::Nonce::try_assume_unique_for_key(iv).expect("nonce length checked");
        let t = self.0.seal_in_place_separate_tag(n, ring::aead::Aad::from(aad), buf).expect("seal");
        tag.copy_from_slice(t.as_ref());
    }
    fn open(&self, iv: &[u8], aad: &[u8], ct: &[u8], tag: &[u8], out: &mut [u8]) -> bool {
        // ring opens in place: the ciphertext is copied into the work buffer first.
        out.copy_from_slice(ct);
        let n = ring::aead::Nonce::try_assume_unique_for_key(iv).expect("nonce length checked");
        let t = ring::aead::Tag::try_from(tag).expect("tag length checked");
        self.0.open_in_place_separate_tag(n, ring::aead::Aad::from(aad), t, out, 0..).is_ok()
    }
}

struct RingHash(&'static ring::digest::Algorithm, Option<ring::digest::Context>);
impl HashCtx for RingHash {
    fn update(&mut self, data: &[u8]) {
        self.1.as_mut().unwrap().update(data);
    }
    fn finish(&mut self) -> Vec<u8> {
        let d = self.1.replace(ring::digest::Context::new(self.0)).unwrap().finish();
        d.as_ref().to_vec()
    }
}

fn ring_entry(p: &Prim) -> Option<Entry> {
    use ring::{aead, digest};
    let aead_alg: Option<&'static aead::Algorithm> = match p.name.as_str() {
        "aes-128-gcm" => Some(&aead::AES_128_GCM),
        "aes-256-gcm" => Some(&aead::AES_256_GCM),
        "chacha20-poly1305" => Some(&aead::CHACHA20_POLY1305),
        _ => None,
    };
    let prov = "ring (BoringSSL-derived assembly, CPU features detected at run time); opens copy the ciphertext into the work buffer (in-place API)";
    if let Some(alg) = aead_alg {
        return Some(Entry {
            prim: p.clone(),
            provider: prov.into(),
            features: None,
            kind: Kind::Aead(Box::new(move |key| {
                let k = aead::UnboundKey::new(alg, key).map_err(err)?;
                Ok(Box::new(RingAead(aead::LessSafeKey::new(k))) as Box<dyn AeadKeyed>)
            })),
            no_keysetup: None,
        one_call: None,
        });
    }
    let alg: &'static digest::Algorithm = match p.name.as_str() {
        "sha-1" => &digest::SHA1_FOR_LEGACY_USE_ONLY,
        "sha-256" => &digest::SHA256,
        "sha-384" => &digest::SHA384,
        "sha-512" => &digest::SHA512,
        "sha-512-256" => &digest::SHA512_256,
        _ => return None,
    };
    Some(Entry {
        prim: p.clone(),
        provider: "ring (assembly, CPU features detected at run time)".into(),
        features: None,
        kind: Kind::Hash(Box::new(move || Box::new(RingHash(alg, Some(digest::Context::new(alg)))))),
        no_keysetup: None,
        one_call: None,
    })
}

// ====================================================================== aws-lc-rs

struct AwsAead(aws_lc_rs::aead::LessSafeKey);
impl AeadKeyed for AwsAead {
    fn seal(&self, iv: &[u8], aad: &[u8], buf: &mut [u8], tag: &mut [u8]) {
        let n = aws_lc_rs::aead::Nonce::try_assume_unique_for_key(iv).expect("nonce length checked");
        let t = self.0.seal_in_place_separate_tag(n, aws_lc_rs::aead::Aad::from(aad), buf).expect("seal");
        tag.copy_from_slice(t.as_ref());
    }
    fn open(&self, iv: &[u8], aad: &[u8], ct: &[u8], tag: &[u8], out: &mut [u8]) -> bool {
        let n = aws_lc_rs::aead::Nonce::try_assume_unique_for_key(iv).expect("nonce length checked");
        self.0.open_separate_gather(n, aws_lc_rs::aead::Aad::from(aad), ct, tag, out).is_ok()
    }
}

struct AwsHash(&'static aws_lc_rs::digest::Algorithm, Option<aws_lc_rs::digest::Context>);
impl HashCtx for AwsHash {
    fn update(&mut self, data: &[u8]) {
        self.1.as_mut().unwrap().update(data);
    }
    fn finish(&mut self) -> Vec<u8> {
        let d = self.1.replace(aws_lc_rs::digest::Context::new(self.0)).unwrap().finish();
        d.as_ref().to_vec()
    }
}

/// aws-lc-rs unauthenticated AES: EncryptingKey/DecryptingKey are one-shot, so
/// every call is a whole message from the IV (see README).
enum AwsKey {
    Enc(aws_lc_rs::cipher::EncryptingKey),
    Dec(aws_lc_rs::cipher::DecryptingKey),
}
struct AwsCipher(AwsKey, bool);
impl Keyed for AwsCipher {
    fn start<'a>(&'a self, iv: &[u8]) -> Result<Xform<'a>, String> {
        use aws_lc_rs::cipher::{DecryptionContext, EncryptionContext};
        use aws_lc_rs::iv::FixedLength;
        let ecb = self.1;
        let iv16: [u8; 16] = if ecb { [0; 16] } else { iv.try_into().map_err(err)? };
        Ok(match &self.0 {
            AwsKey::Enc(k) => Box::new(move |buf: &mut [u8]| {
                if buf.is_empty() {
                    return;
                }
                let ctx = if ecb { EncryptionContext::None } else { EncryptionContext::Iv128(FixedLength::from(iv16)) };
                k.less_safe_encrypt(buf, ctx).expect("aws-lc-rs encrypt");
            }),
            AwsKey::Dec(k) => Box::new(move |buf: &mut [u8]| {
                if buf.is_empty() {
                    return;
                }
                let ctx = if ecb { DecryptionContext::None } else { DecryptionContext::Iv128(FixedLength::from(iv16)) };
                k.decrypt(buf, ctx).expect("aws-lc-rs decrypt");
            }),
        })
    }
}

/// AWS-LC's AES-NI path for AES outside GCM and GCM-SIV (whose VAES and AVX-512 bodies this
/// runner does not follow); other primitives: unknown.
fn aws_features(p: &Prim) -> Option<Vec<&'static str>> {
    let aes = cfg!(target_arch = "x86_64") && p.name.starts_with("aes-") && cpu_has("aes");
    (aes && p.mode != "gcm" && p.mode != "gcmsiv").then(|| vec!["aes-ni"])
}

fn awslc_entry(p: &Prim) -> Option<Entry> {
    use aws_lc_rs::{aead, cipher, digest};
    let base = format!("AWS-LC (aws-lc-sys {}), assembly with run-time CPU dispatch", crate_version("aws-lc-sys"));
    // AWS-LC takes its AES-NI path whenever CPUID reports AES: the label says what ran.
    let prov = if p.name.starts_with("aes-") && cpu_has("aes") { format!("{base}, AES-NI") } else { base };
    let aead_alg: Option<&'static aead::Algorithm> = match p.name.as_str() {
        "aes-128-gcm" => Some(&aead::AES_128_GCM),
        "aes-192-gcm" => Some(&aead::AES_192_GCM),
        "aes-256-gcm" => Some(&aead::AES_256_GCM),
        "aes-128-gcmsiv" => Some(&aead::AES_128_GCM_SIV),
        "aes-256-gcmsiv" => Some(&aead::AES_256_GCM_SIV),
        "chacha20-poly1305" => Some(&aead::CHACHA20_POLY1305),
        _ => None,
    };
    if let Some(alg) = aead_alg {
        return Some(Entry {
            prim: p.clone(),
            provider: prov.clone(),
            features: aws_features(p),
            kind: Kind::Aead(Box::new(move |key| {
                let k = aead::UnboundKey::new(alg, key).map_err(err)?;
                Ok(Box::new(AwsAead(aead::LessSafeKey::new(k))) as Box<dyn AeadKeyed>)
            })),
            no_keysetup: None,
        one_call: None,
        });
    }
    let halg: Option<&'static digest::Algorithm> = match p.name.as_str() {
        "sha-1" => Some(&digest::SHA1_FOR_LEGACY_USE_ONLY),
        "sha-224" => Some(&digest::SHA224),
        "sha-256" => Some(&digest::SHA256),
        "sha-384" => Some(&digest::SHA384),
        "sha-512" => Some(&digest::SHA512),
        "sha-512-256" => Some(&digest::SHA512_256),
        "sha3-256" => Some(&digest::SHA3_256),
        "sha3-384" => Some(&digest::SHA3_384),
        "sha3-512" => Some(&digest::SHA3_512),
        _ => None,
    };
    if let Some(alg) = halg {
        return Some(Entry {
            prim: p.clone(),
            provider: prov.clone(),
            features: aws_features(p),
            kind: Kind::Hash(Box::new(move || Box::new(AwsHash(alg, Some(digest::Context::new(alg)))))),
            no_keysetup: None,
        one_call: None,
        });
    }
    if !p.name.starts_with("aes-") {
        return None;
    }
    let alg: &'static cipher::Algorithm = match p.key_bytes {
        16 => &cipher::AES_128,
        24 => &cipher::AES_192,
        32 => &cipher::AES_256,
        _ => return None,
    };
    type Mk = fn(cipher::UnboundCipherKey, bool) -> Result<AwsKey, aws_lc_rs::error::Unspecified>;
    let mk: Mk = match p.mode.as_str() {
        "ecb" => |k, e| Ok(if e { AwsKey::Enc(cipher::EncryptingKey::ecb(k)?) } else { AwsKey::Dec(cipher::DecryptingKey::ecb(k)?) }),
        "cbc" => |k, e| Ok(if e { AwsKey::Enc(cipher::EncryptingKey::cbc(k)?) } else { AwsKey::Dec(cipher::DecryptingKey::cbc(k)?) }),
        "cfb" => |k, e| Ok(if e { AwsKey::Enc(cipher::EncryptingKey::cfb128(k)?) } else { AwsKey::Dec(cipher::DecryptingKey::cfb128(k)?) }),
        "cfb8" => |k, e| Ok(if e { AwsKey::Enc(cipher::EncryptingKey::cfb8(k)?) } else { AwsKey::Dec(cipher::DecryptingKey::cfb8(k)?) }),
        "ofb" => |k, e| Ok(if e { AwsKey::Enc(cipher::EncryptingKey::ofb(k)?) } else { AwsKey::Dec(cipher::DecryptingKey::ofb(k)?) }),
        "ctr" => |k, e| Ok(if e { AwsKey::Enc(cipher::EncryptingKey::ctr(k)?) } else { AwsKey::Dec(cipher::DecryptingKey::ctr(k)?) }),
        _ => return None,
    };
    let ecb = p.mode == "ecb";
    let new = move |key: &[u8], enc: bool| -> Result<Box<dyn Keyed>, String> {
        let k = cipher::UnboundCipherKey::new(alg, key).map_err(err)?;
        Ok(Box::new(AwsCipher(mk(k, enc).map_err(err)?, ecb)) as Box<dyn Keyed>)
    };
    // Probe: offer only what this AWS-LC build accepts.
    let probe = (|| -> Result<(), String> {
        let key: Vec<u8> = (1..=p.key_bytes as u8).collect();
        for enc in [true, false] {
            let k = new(&key, enc)?;
            let mut x = k.start(&[0u8; 16][..p.iv_bytes])?;
            let mut buf = [0u8; 32];
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| x(&mut buf))).map_err(|_| "probe failed".to_string())?;
        }
        Ok(())
    })();
    probe.ok()?;
    Some(Entry {
        prim: p.clone(),
        provider: format!("{prov}; one-shot API: every call is a whole message from the IV"),
        features: aws_features(p),
        kind: Kind::Cipher(Box::new(new)),
        no_keysetup: None,
        one_call: Some("aws-lc-rs EncryptingKey/DecryptingKey are one call per message".into()),
    })
}

// ====================================================================== assembly

pub fn build(reg: &[Prim]) -> Vec<Impl> {
    let mut rc_notes = Map::new();
    for c in ["cipher", "aes", "aes-gcm", "chacha20", "chacha20poly1305", "sha2", "sha3", "twofish"] {
        rc_notes.insert(c.into(), json!(crate_version(c)));
    }
    rc_notes.insert("modes".into(), json!(format!(
        "cbc {}, cfb-mode {}, ofb {}, ctr {} over &cipher (no key-schedule copy per message)",
        crate_version("cbc"), crate_version("cfb-mode"), crate_version("ofb"), crate_version("ctr")
    )));
    let mut rc = Impl {
        name: "rustcrypto".into(),
        library: "RustCrypto crates (cipher 0.5 / digest 0.11 generation)".into(),
        version: format!("cipher {}", crate_version("cipher")),
        notes: rc_notes,
        entries: vec![],
    };
    let mut rg = Impl {
        name: "ring".into(),
        library: "ring".into(),
        version: crate_version("ring"),
        notes: Map::new(),
        entries: vec![],
    };
    let mut aws_notes = Map::new();
    aws_notes.insert("aws-lc-sys".into(), json!(crate_version("aws-lc-sys")));
    let mut aws = Impl {
        name: "aws-lc-rs".into(),
        library: "aws-lc-rs (AWS-LC, built from source by aws-lc-sys)".into(),
        version: crate_version("aws-lc-rs"),
        notes: aws_notes,
        entries: vec![],
    };
    for p in reg {
        if let Some(e) = rustcrypto_entry(p) {
            rc.entries.push(e);
        }
        if let Some(e) = ring_entry(p) {
            rg.entries.push(e);
        }
        if let Some(e) = awslc_entry(p) {
            aws.entries.push(e);
        }
    }
    let _: Option<Value> = None;
    vec![rc, rg, aws]
}
