// cipherbench Node.js runner: protocol v1 (docs/protocol.md) on stdin/stdout.
// Implementations: node-crypto (node:crypto, Node's bundled OpenSSL, run with
// --openssl-legacy-provider), webcrypto (crypto.webcrypto.subtle), and noble-ciphers and
// noble-hashes (the npm packages @noble/ciphers and @noble/hashes, imported from the
// node_modules of the folder given with --modules DIR, else build/runners/node).
// The canonical-name tables are nodeName() / WEBCRYPTO / NOBLE_CIPHERS / NOBLE_HASHES below.
import crypto from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '..', '..');
// WebCrypto came in Node 15.0.0: on 14 and before it is announced unavailable, with the reason
const subtle = crypto.webcrypto?.subtle;

class Fail extends Error {}        // status "error"
class Unsupported extends Error {} // status "unsupported"

// ------------------------------------------------------------------ registry
function loadRegistry() {
  const file = process.env.CB_REGISTRY || path.join(ROOT, 'build', 'runners', 'node', 'registry.json');
  const list = JSON.parse(fs.readFileSync(file, 'utf8'));
  return new Map(list.map((p) => [p.name, p]));
}

// ------------------------------------------------------------------ name table
// node-crypto: canonical name -> OpenSSL cipher name (or null).
const OSSL_FAMILY = { aes: 'aes-K', aria: 'aria-K', camellia: 'camellia-K', sm4: 'sm4', des: 'des', '3des': null,
  blowfish: 'bf', cast5: 'cast5', idea: 'idea', rc2: 'rc2', seed: 'seed', desx: 'desx' };
function nodeName(p) {
  if (p.kind === 'stream') return { chacha20: 'chacha20', rc4: 'rc4' }[p.name] ?? null;
  if (p.kind === 'aead' && !p.mode) return { 'chacha20-poly1305': 'chacha20-poly1305' }[p.name] ?? null;
  if (p.kind === 'hash') {
    return { md4: 'md4', md5: 'md5', 'sha-1': 'sha1', 'sha-224': 'sha224', 'sha-256': 'sha256', 'sha-384': 'sha384',
      'sha-512': 'sha512', 'sha-512-256': 'sha512-256', 'sha-512-224': 'sha512-224', 'sha3-224': 'sha3-224', 'sha3-256': 'sha3-256',
      'sha3-384': 'sha3-384', 'sha3-512': 'sha3-512', shake128: 'shake128', shake256: 'shake256',
      'blake2b-512': 'blake2b512', 'blake2s-256': 'blake2s256', 'ripemd-160': 'ripemd160', sm3: 'sm3',
      whirlpool: 'whirlpool' }[p.name] ?? null;
  }
  const [fam, bits, mode] = p.name.split('-');
  if (fam === '3des') {
    const base = bits === '112' ? 'des-ede' : 'des-ede3';
    return { ecb: `${base}-ecb`, cbc: `${base}-cbc`, cfb: `${base}-cfb`, cfb8: `${base}-cfb8`, ofb: `${base}-ofb` }[mode] ?? null;
  }
  const stem = OSSL_FAMILY[fam];
  if (!stem) return null;
  if (mode === 'xts') return fam === 'aes' ? `aes-${p.key_bytes * 4}-xts` : null;
  const okModes = ['ecb', 'cbc', 'cfb', 'cfb8', 'ofb', 'ctr', 'gcm', 'ccm', 'ocb'];
  if (!okModes.includes(mode)) return null;
  return `${stem.replace('K', bits)}-${mode}`;
}

// webcrypto: AES-CBC / AES-CTR / AES-GCM and SHA digests.
const WEB_MODES = { cbc: 'AES-CBC', ctr: 'AES-CTR', gcm: 'AES-GCM' };
const WEB_HASHES = { 'sha-1': 'SHA-1', 'sha-256': 'SHA-256', 'sha-384': 'SHA-384', 'sha-512': 'SHA-512' };

// ------------------------------------------------------------------ node-crypto entries
// A cipher entry: start(key, iv, enc, aad, msgLen) -> object with update(buf) and final();
// AEADs also take/give the tag. Node sets key and IV together in createCipheriv.
function nodeEntry(p, name, provider) {
  if (p.kind === 'hash') {
    const opts = p.name.startsWith('shake') ? { outputLength: p.digest_bytes } : undefined;
    return { prim: p, provider, hash: () => crypto.createHash(name, opts) };
  }
  const aead = p.kind === 'aead';
  const ivOf = (iv) => (name === 'chacha20' ? Buffer.concat([Buffer.alloc(4), iv]) : (iv.length ? iv : null));
  const start = (key, iv, enc, aad, msgLen, tag) => {
    const opts = aead ? { authTagLength: p.tag_bytes } : undefined;
    const c = enc ? crypto.createCipheriv(name, key, ivOf(iv), opts) : crypto.createDecipheriv(name, key, ivOf(iv), opts);
    if (!aead) c.setAutoPadding(false);
    if (aead && !enc) c.setAuthTag(tag ?? Buffer.alloc(p.tag_bytes));
    if (p.mode === 'ccm') c.setAAD(aad, { plaintextLength: msgLen });
    else if (aead && aad.length) c.setAAD(aad);
    return c;
  };
  // CCM takes one update per message in OpenSSL: it cannot stream a bulk message.
  return { prim: p, provider, start, stream: p.mode !== 'ccm' };
}

function cpuHas(flag) {
  try {
    const line = fs.readFileSync('/proc/cpuinfo', 'utf8').split('\n').find((l) => l.startsWith('flags'));
    return ` ${line} `.includes(` ${flag} `);
  } catch { return false; }
}

// The features of a path through the bundled OpenSSL (docs/protocol.md, `features`), by
// OpenSSL's own x86-64 rules as the engine's OpenSSL adapter reads them
// (engine/adapters/openssl/adapter.cpp, features_of): AES-NI for AES; for GCM its AVX-512
// VAES body from 3.1 on where the CPU has AVX512F, DQ, BW, VL, VAES and VPCLMULQDQ, else
// AES-NI + PCLMUL; XTS's VAES bodies from 3.4 on are not followed (unknown); SHA-NI for
// SHA-1/SHA-224/SHA-256; C for the legacy ciphers OpenSSL has no assembly for. null
// (unknown) elsewhere, off x86-64, and where OPENSSL_ia32cap masks what CPUID says.
const C_FAMILIES = new Set(['blowfish', 'cast5', 'des', '3des', 'desx', 'idea', 'seed', 'rc2']);
function opensslFeatures(p, fam) {
  if (process.arch !== 'x64' || process.env.OPENSSL_ia32cap !== undefined) return null;
  const [major, minor] = process.versions.openssl.split('.').map(Number);
  const at = (a, b) => major > a || (major === a && minor >= b);
  if (fam === 'aes') {
    if (!cpuHas('aes')) return null;
    if (p.mode === 'gcm') {
      const vaes = at(3, 1) && ['avx512f', 'avx512dq', 'avx512bw', 'avx512vl', 'vaes', 'vpclmulqdq'].every(cpuHas);
      return vaes ? ['vaes', 'vpclmul', 'avx512'] : cpuHas('pclmulqdq') ? ['aes-ni', 'pclmul'] : null;
    }
    if (p.mode === 'xts' && at(3, 4)) return null;
    if (['gcmsiv', 'siv'].includes(p.mode)) return null;
    return ['aes-ni'];
  }
  if (['sha-1', 'sha-224', 'sha-256'].includes(p.name)) return cpuHas('sha_ni') ? ['sha-ni'] : null;
  return C_FAMILIES.has(fam) ? ['portable'] : null;
}

// The words for people beside those features.
function opensslWords(f) {
  if (f === null) return '';
  if (f.includes('vaes')) return ', AES-GCM with VAES + VPCLMULQDQ (AVX-512)';
  if (f.includes('pclmul')) return ', AES-NI + PCLMUL';
  if (f.includes('aes-ni')) return ', AES-NI';
  if (f.includes('sha-ni')) return ', SHA-NI';
  if (f.includes('portable')) return ', portable C';
  return '';
}

// OpenSSL 1.1.1 (Node 16 and before) has no providers: its legacy ciphers are built in, and
// its Node refuses --openssl-legacy-provider (cipherbench/releases/ecosystems/npm_runtime.py)
const PROVIDERS = Number(process.versions.openssl.split('.')[0]) >= 3;
function buildImplementations(reg) {
  const ossl = `bundled OpenSSL ${process.versions.openssl}`;
  const aesni = cpuHas('aes');
  const ciphers = new Set(crypto.getCiphers());
  const hashes = new Set(crypto.getHashes());
  const legacy = new Set(['des', 'desx', 'blowfish', 'cast5', 'idea', 'rc2', 'seed', 'rc4', 'md4', 'whirlpool']);
  const nc = { name: 'node-crypto', library: `node:crypto (OpenSSL ${process.versions.openssl}, bundled in Node)`,
    version: process.versions.openssl, entries: new Map(),
    notes: { node: process.version, openssl: process.versions.openssl,
      providers: PROVIDERS ? 'default + legacy (node --openssl-legacy-provider)' : 'none (OpenSSL 1.x): legacy ciphers built in',
      api: 'createCipheriv/createHash: key and IV are set together; update() returns a new Buffer' } };
  for (const p of reg.values()) {
    const name = nodeName(p);
    if (!name) continue;
    if (p.kind === 'hash' ? !hashes.has(name) : !ciphers.has(name)) continue;
    const fam = p.kind === 'hash' || p.kind === 'stream' ? p.name : p.name.split('-')[0];
    const features = opensslFeatures(p, fam);
    let provider = `${ossl} (EVP)${opensslWords(features)}`;
    if (fam === 'aes' && !aesni) provider += ', no AES-NI';
    if (legacy.has(fam) && PROVIDERS) provider += ', legacy provider';
    const e = nodeEntry(p, name, provider);
    e.features = features;
    if (probe(e)) nc.entries.set(p.name, e);
  }
  const wc = { name: 'webcrypto', library: `WebCrypto (crypto.webcrypto.subtle, Node ${process.version})`,
    version: process.version.replace(/^v/, ''), entries: new Map(),
    notes: { openssl: process.versions.openssl,
      api: 'one awaited promise per call; importKey is the key setup; AES-CBC always pads (see provider)' } };
  if (!subtle) return [nc, { ...wc, available: false, reason: `Node ${process.version} has no crypto.webcrypto (Node 15 on)` }];
  for (const p of reg.values()) {
    if (p.kind === 'hash' && WEB_HASHES[p.name]) {
      const features = opensslFeatures(p, p.name);
      wc.entries.set(p.name, { prim: p, web: WEB_HASHES[p.name], features,
        provider: `${ossl}${opensslWords(features)} via WebCrypto digest(); one-shot: each call is a whole digest` });
    } else if (p.name.startsWith('aes-') && WEB_MODES[p.mode]) {
      const features = opensslFeatures(p, 'aes');
      let provider = `${ossl}${opensslWords(features)}${aesni ? '' : ', no AES-NI'}, WebCrypto ${WEB_MODES[p.mode]}; one promise per call`;
      if (p.mode === 'cbc') provider += '; PKCS#7 always added: every encrypt call processes size+16 bytes and the pad block is dropped, every decrypt call gets a prepared pad block appended (size+16 bytes)';
      if (p.mode === 'ctr') provider += '; counter length 128 bits';
      wc.entries.set(p.name, { prim: p, web: WEB_MODES[p.mode], provider, features });
    }
  }
  return [nc, wc];
}

// A cipher's probe also checks the output's length: a library that pads where the registry's
// mode does not (or cuts a tag) is not offered.
function probe(e) {
  try {
    const p = e.prim;
    if (p.kind === 'hash') return e.hash().update(Buffer.alloc(1)).digest().length === p.digest_bytes;
    const key = Buffer.from(Array.from({ length: p.key_bytes }, (_, i) => (i * 7 + 1) & 255));
    const n = p.block_bytes ? p.block_bytes * 2 : 32;
    const c = e.start(key, Buffer.alloc(p.iv_bytes), true, Buffer.alloc(0), n);
    const out = Buffer.concat([c.update(Buffer.alloc(n)), c.final()]);
    return out.length === n && (p.kind !== 'aead' || c.getAuthTag().length === p.tag_bytes);
  } catch { return false; }
}

// ------------------------------------------------------------------ noble (npm)
// Where noble's packages are looked for: DIR/node_modules of `--modules DIR` (an installed
// release's folder, cipherbench/releases/ecosystems/npm.py), else of build/runners/node.
function modulesDir() {
  const at = process.argv.indexOf('--modules');
  if (at >= 0 && process.argv[at + 1]) return path.resolve(process.argv[at + 1]);
  return path.join(ROOT, 'build', 'runners', 'node');
}

// A module of a package as an ESM importer gets it: the package's own "exports" map (its
// "import" condition; its "require"/"default" one where that does not load: @noble/hashes
// 0.5.6 ships an esm/package.json Node cannot parse), else the file itself (noble 2.0.0 has
// no map; @noble/hashes 0.4 keeps its files in lib/, mapped as ./lib/NAME from 0.4.4). null
// when the package has no such module.
function pickExport(v, conds) {
  if (typeof v === 'string') return v;
  if (!v || typeof v !== 'object') return null;
  const k = conds.find((c) => c in v);
  return k ? pickExport(v[k], conds) : null;
}
async function nobleModule(pkgDir, meta, stem) {
  let rels;
  if (meta.exports) {
    const v = [`./${stem}.js`, `./${stem}`, `./lib/${stem}`].map((k) => meta.exports[k]).find((x) => x);
    rels = [pickExport(v, ['import', 'node', 'default']), pickExport(v, ['require', 'default'])];
  } else rels = [`./${stem}.js`, `./lib/${stem}.js`];
  for (const rel of rels) {
    if (!rel || !fs.existsSync(path.join(pkgDir, rel))) continue;
    try { return await import(pathToFileURL(path.join(pkgDir, rel)).href); } catch { /* the next */ }
  }
  return null;
}
// The first of the named exports found in the first of the modules that has one.
async function nobleExport(pkgDir, meta, stems, names) {
  for (const stem of stems) {
    const m = await nobleModule(pkgDir, meta, stem);
    if (!m) continue;
    for (const n of names) {
      const f = m[n] ?? m.default?.[n];
      if (f) return f;
    }
  }
  return null;
}

// canonical name -> [modules, export names, how it is called]; noble renamed chacha20_poly1305
// to chacha20poly1305 in 0.4.0 and moved sha256 into sha2 in 1.4.0 (both kept for the releases
// before). AES came in 0.4.0 (0.1-0.3 only wrapped WebCrypto's, which is not noble's code).
function nobleCipher(p) {
  if (p.family === 'aes' && p.key_bytes !== undefined && ['ecb', 'cbc', 'ctr', 'cfb', 'gcm', 'gcmsiv'].includes(p.mode)) {
    const how = p.kind === 'aead' ? 'aead' : p.mode === 'ecb' ? 'ecb' : p.mode === 'cbc' ? 'cbc' : 'iv';
    return [['aes'], [p.mode], how];
  }
  return {
    chacha20: [['chacha'], ['chacha20'], 'stream'], xchacha20: [['chacha'], ['xchacha20'], 'stream'],
    salsa20: [['salsa'], ['salsa20'], 'stream'], xsalsa20: [['salsa'], ['xsalsa20'], 'stream'],
    'chacha20-poly1305': [['chacha'], ['chacha20poly1305', 'chacha20_poly1305'], 'aead'],
    'xchacha20-poly1305': [['chacha'], ['xchacha20poly1305', 'xchacha20_poly1305'], 'aead'],
  }[p.name] ?? null;
}
const SHA2_256 = ['sha2', 'sha256']; const SHA2_512 = ['sha2', 'sha512'];
const NOBLE_HASHES = {
  'sha-224': [SHA2_256, 'sha224'], 'sha-256': [SHA2_256, 'sha256'], 'sha-384': [SHA2_512, 'sha384'],
  'sha-512': [SHA2_512, 'sha512'], 'sha-512-224': [SHA2_512, 'sha512_224'], 'sha-512-256': [SHA2_512, 'sha512_256'],
  'sha-1': [['legacy', 'sha1'], 'sha1'], md5: [['legacy'], 'md5'], 'ripemd-160': [['legacy', 'ripemd160'], 'ripemd160'],
  'sha3-224': [['sha3'], 'sha3_224'], 'sha3-256': [['sha3'], 'sha3_256'], 'sha3-384': [['sha3'], 'sha3_384'],
  'sha3-512': [['sha3'], 'sha3_512'], 'keccak-224': [['sha3'], 'keccak_224'], 'keccak-256': [['sha3'], 'keccak_256'],
  'keccak-384': [['sha3'], 'keccak_384'], 'keccak-512': [['sha3'], 'keccak_512'],
  shake128: [['sha3'], 'shake128', true], shake256: [['sha3'], 'shake256', true],
  'blake2b-512': [['blake2', 'blake2b'], 'blake2b', true], 'blake2b-256': [['blake2', 'blake2b'], 'blake2b', true],
  'blake2s-256': [['blake2', 'blake2s'], 'blake2s'],
};

const u8buf = (u) => Buffer.from(u.buffer, u.byteOffset, u.length);
const EMPTY = Buffer.alloc(0);

// noble's ciphers take key, nonce and the whole message in one call. The entry wears
// node-crypto's shape (start -> update/final/getAuthTag) so the same request code runs it:
// update() keeps the one message, final() makes the call. Decryption of an AEAD hands noble
// ciphertext || tag, joined in one copy per message (noble takes them together).
function nobleEntry(p, fn, how, provider) {
  const aead = p.kind === 'aead';
  const call = (key, iv, aad, data, enc) => {
    const a = aad.length ? aad : undefined;
    if (how === 'stream') return fn(key, iv, data);
    const c = how === 'aead' ? fn(key, iv, a) : how === 'ecb' ? fn(key, { disablePadding: true })
      : how === 'cbc' ? fn(key, iv, { disablePadding: true }) : fn(key, iv);
    return enc ? c.encrypt(data) : c.decrypt(data);
  };
  const start = (key, iv, enc, aad, msgLen, tag) => {
    let data = null; let tagOut = null;
    return {
      update(buf) {
        if (data) throw new Fail(`${p.name}: noble takes a whole message per call`);
        data = buf;
        return EMPTY;
      },
      final() {
        let input = data ?? EMPTY;
        data = null;
        if (aead && !enc) input = Buffer.concat([input, tag ?? Buffer.alloc(p.tag_bytes)]);
        const out = u8buf(call(key, iv, aad, input, enc));
        if (aead && enc) { tagOut = out.subarray(out.length - p.tag_bytes); return out.subarray(0, out.length - p.tag_bytes); }
        return out;
      },
      getAuthTag() { return tagOut; },
    };
  };
  return { prim: p, provider, start, stream: false, oneShot: true, features: ['portable'] };
}
function nobleHashEntry(p, fn, sized, provider) {
  const opts = sized ? { dkLen: p.digest_bytes } : undefined;
  const hash = () => {
    const h = fn.create(opts);
    return { update(b) { h.update(b); return this; }, digest() { return u8buf(h.digest()); } };
  };
  return { prim: p, provider, hash, features: ['portable'] };
}

// One noble package as an implementation: its entries where its modules have them, each
// checked by a probe; unavailable, with the reason, when the package is not there.
async function noblePackage(reg, name, pkg, entryOf) {
  const dir = modulesDir();
  const pkgDir = path.join(dir, 'node_modules', ...pkg.split('/'));
  const im = { name, library: pkg, version: '', entries: new Map(), available: true,
    notes: { package: pkg, modules: dir, node: process.version,
      api: 'pure JavaScript; one call per message (key, nonce and message together): no streaming, no separate key setup' } };
  let meta;
  try { meta = JSON.parse(fs.readFileSync(path.join(pkgDir, 'package.json'), 'utf8')); } catch {
    return { ...im, available: false,
      reason: `${pkg} is not installed in ${dir}/node_modules ('cipherbench versions add ${name} VERSION' installs a release)` };
  }
  im.version = String(meta.version);
  const provider = `${pkg} ${meta.version}, pure JavaScript, one call per message`;
  for (const p of reg.values()) {
    const e = await entryOf(p, pkgDir, meta, provider);
    if (e && probe(e)) im.entries.set(p.name, e);
  }
  if (!im.entries.size) return { ...im, available: false, reason: `${pkg} ${meta.version} offers no registry primitive here` };
  return im;
}
function nobleImplementations(reg) {
  return Promise.all([
    noblePackage(reg, 'noble-ciphers', '@noble/ciphers', async (p, dir, meta, provider) => {
      const how = p.kind === 'hash' ? null : nobleCipher(p);
      const fn = how && await nobleExport(dir, meta, how[0], how[1]);
      return fn ? nobleEntry(p, fn, how[2], provider) : null;
    }),
    noblePackage(reg, 'noble-hashes', '@noble/hashes', async (p, dir, meta, provider) => {
      const how = p.kind === 'hash' ? NOBLE_HASHES[p.name] : null;
      const fn = how && await nobleExport(dir, meta, how[0], [how[1]]);
      return fn && typeof fn.create === 'function' ? nobleHashEntry(p, fn, how[2], provider) : null;
    }),
  ]);
}


// ------------------------------------------------------------------ request helpers
function str(req, f) {
  if (!(f in req)) throw new Fail(`missing field '${f}'`);
  if (typeof req[f] !== 'string') throw new Fail(`field '${f}' must be a string`);
  return req[f];
}
function count(req, f, dflt, required = false) {
  if (!(f in req)) { if (required) throw new Fail(`missing field '${f}'`); return dflt; }
  const v = req[f];
  if (!Number.isSafeInteger(v) || v < 0) throw new Fail(`field '${f}' must be a non-negative integer`);
  return v;
}
function unhex(req, f, required = false) {
  const v = req[f];
  if (v === undefined || v === null) { if (required) throw new Fail(`missing field '${f}'`); return Buffer.alloc(0); }
  if (typeof v !== 'string') throw new Fail(`field '${f}' must be a hex string`);
  if (v.length % 2) throw new Fail(`field '${f}' has an odd number of hex digits`);
  if (!/^[0-9a-fA-F]*$/.test(v)) throw new Fail(`field '${f}' is not hex`);
  return Buffer.from(v, 'hex');
}
function checkLengths(p, key, iv, aad) {
  if (key.length !== p.key_bytes) throw new Fail(`${p.name} takes a ${p.key_bytes}-byte key, got ${key.length}`);
  if (iv.length !== p.iv_bytes) throw new Fail(`${p.name} takes a ${p.iv_bytes}-byte IV/nonce, got ${iv.length}`);
  if (aad.length && p.kind !== 'aead') throw new Fail(`${p.name} is not an AEAD and takes no associated data`);
}
function checkInput(p, n) {
  if (p.whole_blocks && n % p.block_bytes) {
    throw new Fail(`${p.name} takes whole ${p.block_bytes}-byte blocks (no padding), got ${n} bytes`);
  }
}
const lib = (p, f) => {
  try { return f(); } catch (err) {
    if (err instanceof Fail || err instanceof Unsupported) throw err;
    throw new Fail(`${p.name}: the library refused: ${err.message}`);
  }
};
async function alib(p, f) {
  try { return await f(); } catch (err) {
    if (err instanceof Fail || err instanceof Unsupported) throw err;
    throw new Fail(`${p.name}: the library refused: ${err.message}`);
  }
}

// ------------------------------------------------------------------ webcrypto operations
const WEB_USAGES = ['encrypt', 'decrypt'];
const webKey = (e, key) => subtle.importKey('raw', key, { name: e.web }, false, WEB_USAGES);
function webParams(e, iv, aad) {
  if (e.web === 'AES-CTR') return { name: 'AES-CTR', counter: iv, length: 128 };
  if (e.web === 'AES-GCM') return aad.length ? { name: 'AES-GCM', iv, additionalData: aad, tagLength: 128 }
    : { name: 'AES-GCM', iv, tagLength: 128 };
  return { name: 'AES-CBC', iv };
}
// AES-CBC without padding through an API that always pads: encryption drops the
// pad block; decryption appends the block that encrypts to a valid pad,
// E(C_last xor 10..10), which is what encrypting nothing with IV = C_last gives.
async function webPadBlock(k, lastBlock) {
  return Buffer.from(await subtle.encrypt({ name: 'AES-CBC', iv: lastBlock }, k, new Uint8Array(0)));
}
async function webCrypt(e, k, iv, aad, data, enc) {
  const params = webParams(e, iv, aad);
  if (e.web === 'AES-CBC') {
    if (enc) return Buffer.from(await subtle.encrypt(params, k, data)).subarray(0, data.length);
    if (!data.length) return Buffer.alloc(0);
    const pad = await webPadBlock(k, data.subarray(data.length - 16));
    return Buffer.from(await subtle.decrypt(params, k, Buffer.concat([data, pad])));
  }
  if (enc) return Buffer.from(await subtle.encrypt(params, k, data));
  if (e.web !== 'AES-GCM') return Buffer.from(await subtle.decrypt(params, k, data));
  try {
    return Buffer.from(await subtle.decrypt(params, k, data));
  } catch (err) {
    if (err && err.name === 'OperationError') return null; // tag mismatch
    throw err;
  }
}

// ------------------------------------------------------------------ ops
let REG, IMPLS;

function hello() {
  return { status: 'ok', protocol: 1, runner: 'node', language: 'JavaScript', jit: true,
    runtime: `Node.js ${process.version} (V8 ${process.versions.v8})`,
    clocks: { monotonic: 'process.hrtime.bigint() (CLOCK_MONOTONIC)', tsc: null, core_cycles: null },
    implementations: IMPLS.map((im) => ({ name: im.name, library: im.library, version: im.version,
      available: im.available ?? true, ...(im.reason ? { reason: im.reason } : {}),
      primitives: [...im.entries.values()].map((e) => ({ name: e.prim.name, provider: e.provider,
        ...(e.features ? { features: e.features } : {}) })), notes: im.notes })) };
}

function target(req) {
  const iname = str(req, 'impl'); const pname = str(req, 'primitive');
  if (!REG.has(pname)) throw new Fail(`unknown primitive '${pname}' (not in the registry)`);
  const im = IMPLS.find((x) => x.name === iname);
  if (!im) throw new Fail(`unknown implementation '${iname}'`);
  const e = im.entries.get(pname);
  if (!e) throw new Unsupported(`${iname} does not offer ${pname}`);
  return { e, web: im.name === 'webcrypto' };
}

// The optional "chunks" field: lengths of consecutive update calls, then the rest.
function chunkParts(req, p, n) {
  const v = req.chunks;
  if (v === undefined || v === null) return { parts: n ? [n] : [], chunked: false };
  if (!Array.isArray(v)) throw new Fail("field 'chunks' must be a list of byte counts");
  const parts = []; let sum = 0;
  for (const x of v) {
    if (!Number.isSafeInteger(x) || x <= 0) throw new Fail("field 'chunks' must hold positive byte counts");
    if (p.whole_blocks && x % p.block_bytes) throw new Fail(`${p.name} takes whole ${p.block_bytes}-byte blocks: chunk of ${x} bytes`);
    if (x > n - sum) throw new Fail(`chunks add up to more than the ${n}-byte input`);
    sum += x; parts.push(x);
  }
  if (sum < n) parts.push(n - sum);
  return { parts, chunked: true };
}

async function crypt(req, enc) {
  const { e, web } = target(req);
  const p = e.prim;
  if (p.kind === 'hash') throw new Fail(`${p.name} is a hash: use op 'hash'`);
  if (req.inplace === true) throw new Unsupported("this runner does not offer in-place operation ('inplace')");
  const key = unhex(req, 'key'); const iv = unhex(req, 'iv'); const aad = unhex(req, 'aad');
  let data = unhex(req, 'input', true);
  checkLengths(p, key, iv, aad);
  const aead = p.kind === 'aead';
  let tag;
  if (aead && !enc) {
    if (data.length < p.tag_bytes) throw new Fail(`${p.name} decryption input must end with the ${p.tag_bytes}-byte tag`);
    if (!web) { tag = data.subarray(data.length - p.tag_bytes); data = data.subarray(0, data.length - p.tag_bytes); }
  }
  const n = data.length - (web && aead && !enc ? p.tag_bytes : 0);
  checkInput(p, n);
  const { parts, chunked } = chunkParts(req, p, n);
  const flag = chunked ? { chunked: true } : {};
  if (parts.length > 1 && (web || e.oneShot || p.mode === 'ccm' || p.mode === 'xts')) {
    const why = web ? 'WebCrypto is one call per message' : e.oneShot ? 'noble is one call per message' : p.mode === 'ccm'
      ? "OpenSSL's CCM takes one update per message" : "OpenSSL's XTS treats every update as a whole data unit";
    throw new Unsupported(`${p.name}: ${why}, so it cannot take the input in chunks`);
  }
  if (web) {
    const k = await alib(p, () => webKey(e, key));
    const out = await alib(p, () => webCrypt(e, k, iv, aad, data, enc));
    if (aead && !enc) return out ? { status: 'ok', ...flag, authentic: true, output: out.toString('hex') } : { status: 'ok', ...flag, authentic: false };
    return { status: 'ok', ...flag, output: out.toString('hex') };
  }
  const c = lib(p, () => e.start(key, iv, enc, aad, data.length, tag));
  // (OpenSSL's XTS refuses a zero-length update, so an empty input skips it.)
  const outs = []; let at = 0;
  for (const len of parts) { outs.push(lib(p, () => c.update(data.subarray(at, at + len)))); at += len; }
  if (!parts.length && p.mode !== 'xts') outs.push(lib(p, () => c.update(data))); // (OpenSSL's XTS refuses an empty update; CCM needs one)
  const part = Buffer.concat(outs);
  if (aead && !enc) {
    let fin; // OCB releases the last partial block only here
    try { fin = c.final(); } catch { return { status: 'ok', ...flag, authentic: false }; }
    return { status: 'ok', ...flag, authentic: true, output: Buffer.concat([part, fin]).toString('hex') };
  }
  const out = Buffer.concat([part, lib(p, () => c.final())]);
  return { status: 'ok', ...flag, output: (aead ? Buffer.concat([out, c.getAuthTag()]) : out).toString('hex') };
}

async function hashOnce(req) {
  const { e, web } = target(req);
  const p = e.prim;
  if (p.kind !== 'hash') throw new Fail(`${p.name} is not a hash: use encrypt/decrypt`);
  const data = unhex(req, 'input', true);
  const d = web ? Buffer.from(await subtle.digest(e.web, data)) : e.hash().update(data).digest();
  return { status: 'ok', output: d.toString('hex') };
}

function bump(iv) { // next nonce: big-endian increment (in place)
  for (let j = iv.length - 1; j >= 0; j--) { iv[j] = (iv[j] + 1) & 255; if (iv[j]) break; }
}

// JIT warm-up: the first time a code path (impl, primitive, operation, workload) is
// benched, its batch body runs untimed for about a second; a further size of the
// same path, already compiled, for a tenth of that.
// CB_WARMUP_MS overrides the second (tests use 0).
const WARMUP_NS = BigInt(Math.round(Number(process.env.CB_WARMUP_MS ?? 1000) * 1e6));
const warmed = new Set();
const warmedPaths = new Set();
let requestWarmupNs = WARMUP_NS; // docs/protocol.md `warmup_ms`, set per bench request
let requestProbe = 0; // docs/protocol.md `probe` (thousands of additions a reading, 0: none), likewise
// whether the request's batches run on the main thread, whose switches probeReading counts
// (false for webcrypto: its work runs on libuv's pool, so it answers no probe_switches)
let requestOnMainThread = true;
async function batches(wkey, n, body) {
  if (!warmed.has(wkey) && requestWarmupNs > 0n) {
    warmed.add(wkey);
    const path = wkey.slice(0, wkey.lastIndexOf('|'));  // wkey ends in |size
    const first = !warmedPaths.has(path);
    warmedPaths.add(path);
    const until = process.hrtime.bigint() + (first ? requestWarmupNs : requestWarmupNs / 10n);
    do { await body(); } while (process.hrtime.bigint() < until);
  }
  const ns = [];
  // the core read before the first batch and after each, outside the timed interval
  const probes = requestProbe ? [probeReading(requestProbe)] : null;
  for (let b = 0; b < n; b++) {
    ns.push(Number(await body()));
    if (probes) probes.push(probeReading(requestProbe));
  }
  const r = { status: 'ok', ns, tsc: null, core_cycles: null };
  if (probes) {
    Object.assign(r, { probe_cycles: requestProbe * 1000, probe_ns: probes.map((x) => x[0]),
      probe_parallel_ns: probes.map((x) => x[1]) });
    if (requestOnMainThread && probes.every((x) => x[2] !== null)) r.probe_switches = probes.map((x) => x[2]);
  }
  return r;
}

// The bench field `probe` (docs/protocol.md): engine/src/probe.c's cb_probe, the engine's own
// instructions, through the N-API addon probe_napi.c, which build.sh compiles with it into
// build/runners/node/cb_probe.node; read(k) answers [serial ns, parallel ns], switches() the
// main thread's involuntary context switches (null where unknown; an addon built before it has
// no switches). null when the addon is missing or does not load: the runner then ignores the field.
function loadProbe() {
  try {
    const addon = createRequire(import.meta.url)(path.join(ROOT, 'build', 'runners', 'node', 'cb_probe.node'));
    addon.read(1); // one small reading: the addon answers as it should
    return addon;
  } catch {
    return null;
  }
}
const PROBE = loadProbe();
// One reading: [serial ns, parallel ns, the main (timing) thread's involuntary context
// switches right after, or null where they are not counted]. The main thread reads the clock
// and runs every batch but WebCrypto's (requestOnMainThread).
function probeReading(k) {
  const [serial, parallel] = PROBE.read(k);
  return [serial, parallel, typeof PROBE.switches === 'function' ? PROBE.switches() : null];
}
const now = () => process.hrtime.bigint();

async function bench(req) {
  const { e, web } = target(req);
  const p = e.prim;
  const op = str(req, 'operation');
  const workload = 'workload' in req ? str(req, 'workload') : 'bulk';
  const size = count(req, 'size', 0, op !== 'keysetup' && op !== 'keysetup-decrypt');
  const loops = count(req, 'loops', 0, true); const nb = count(req, 'batches', 1);
  if (loops === 0 || nb === 0) throw new Fail('loops and batches must be at least 1');
  if (nb > 100000) throw new Fail('at most 100000 batches per request');
  if (size > 2 ** 30) throw new Fail('size is limited to 1 GiB');
  // docs/protocol.md "bench": caps far above any calibrated batch, so an absurd count is
  // refused instead of running until the orchestrator's timeout
  if (loops > 1e9) throw new Fail('loops must be at most 1000000000');
  if (loops * Math.max(size, 1) > 2 ** 36) throw new Fail('loops x size must be at most 2^36 bytes per batch');
  // the orchestrator's warm-up for a new code path in this run (docs/protocol.md `warmup_ms`)
  const warmupMs = 'warmup_ms' in req ? count(req, 'warmup_ms', 0) : -1;
  if (warmupMs > 60000) throw new Fail('warmup_ms is limited to 60000');
  requestWarmupNs = warmupMs >= 0 ? BigInt(warmupMs) * 1000000n : WARMUP_NS;
  const probe = req.probe == null ? 0 : count(req, 'probe', 0);
  if (probe > 100000) throw new Fail('probe must be in 0..100000');
  requestProbe = PROBE ? probe : 0;
  requestOnMainThread = !web;
  if (!['bulk', 'message', 'rekey'].includes(workload)) throw new Fail(`unknown workload '${workload}'; accepted: bulk, message, rekey`);
  const buf = Buffer.alloc(size);
  for (let i = 0; i < size; i++) buf[i] = i & 255;
  const wkey = `${e.provider}|${p.name}|${web}|${op}|${workload}|${size}`;

  if (p.kind === 'hash') {
    if (op !== 'hash') throw new Fail(`${p.name} is a hash: operation must be 'hash'`);
    if (workload === 'rekey') throw new Fail('hashes have no key: use workload bulk or message');
    if (web) {
      return batches(wkey, nb, async () => {
        const t0 = now();
        for (let i = 0; i < loops; i++) await subtle.digest(e.web, buf);
        return now() - t0;
      });
    }
    if (workload === 'bulk') {
      return batches(wkey, nb, async () => {
        const h = e.hash();
        const t0 = now();
        for (let i = 0; i < loops; i++) h.update(buf);
        const t = now() - t0;
        h.digest();
        return t;
      });
    }
    return batches(wkey, nb, async () => {
      const t0 = now();
      for (let i = 0; i < loops; i++) e.hash().update(buf).digest();
      return now() - t0;
    });
  }

  const key = unhex(req, 'key'); const iv = unhex(req, 'iv'); const aad = unhex(req, 'aad');
  checkLengths(p, key, iv, aad);
  const aead = p.kind === 'aead';
  if (op === 'keysetup' || op === 'keysetup-decrypt') {
    if (e.oneShot) throw new Unsupported(`${p.name}: noble sets the key in the call that encrypts: there is no key setup to time alone`);
    const enc = op === 'keysetup';
    if (web) {
      await alib(p, () => webKey(e, key));
      return batches(wkey, nb, async () => {
        const t0 = now();
        for (let i = 0; i < loops; i++) await webKey(e, key);
        return now() - t0;
      });
    }
    // createCipheriv sets key and IV together: keysetup times making the cipher object.
    lib(p, () => e.start(key, iv, enc, aad, size));
    return batches(wkey, nb, async () => {
      const t0 = now();
      for (let i = 0; i < loops; i++) e.start(key, iv, enc, aad, size);
      return now() - t0;
    });
  }
  checkInput(p, size);
  if (!['encrypt', 'decrypt', 'decrypt-forged'].includes(op)) {
    throw new Fail(`unknown operation '${op}'; accepted: encrypt, decrypt, decrypt-forged, keysetup, keysetup-decrypt, hash`);
  }
  const forged = op === 'decrypt-forged';
  if (forged && !aead) throw new Fail('decrypt-forged applies to AEADs only');
  const enc = op === 'encrypt';
  const rekey = workload === 'rekey';
  const ivw = Buffer.from(iv); // bumped per message for encryption

  if (web) {
    let k = await alib(p, () => webKey(e, key));
    let data = buf;
    if (!enc) {
      if (aead) { // a valid (or forged) ciphertext and tag, made before timing
        const ct = Buffer.from(await subtle.encrypt(webParams(e, iv, aad), k, buf));
        if (forged) ct[size] ^= 1;
        data = ct;
      } else if (e.web === 'AES-CBC' && size) { // append the prepared pad block (see webCrypt)
        data = Buffer.concat([buf, await webPadBlock(k, buf.subarray(size - 16))]);
      }
    }
    let accepted = 0; let total = 0;
    const params = webParams(e, iv, aad);
    const res = await batches(wkey, nb, async () => {
      const t0 = now();
      for (let i = 0; i < loops; i++) {
        if (rekey) k = await webKey(e, key);
        if (enc) {
          await subtle.encrypt(workload === 'bulk' ? params : webParams(e, ivw, aad), k, data);
          if (workload !== 'bulk') bump(ivw);
        } else if (aead) { // WebCrypto always checks the tag, also in the bulk workload
          try { await subtle.decrypt(params, k, data); accepted++; } catch { /* rejected */ }
        } else if (data.length) {
          await subtle.decrypt(params, k, data);
        }
      }
      total += loops;
      return now() - t0;
    });
    if (aead && !enc && (forged ? accepted !== 0 : accepted !== total)) {
      throw new Fail(`${p.name}: ${accepted} of ${total} ${forged ? 'forged messages were accepted' : 'valid messages were accepted'}`);
    }
    return res;
  }

  // node-crypto
  if (aead && !enc) {
    const s = lib(p, () => e.start(key, iv, true, aad, size));
    const ct = Buffer.concat([s.update(buf), s.final()]);
    const tag = Buffer.from(s.getAuthTag());
    if (forged) tag[0] ^= 1;
    if (workload === 'bulk' && e.stream) { // streaming decryption, no tag check (as openssl speed)
      return batches(wkey, nb, async () => {
        const c = e.start(key, iv, false, aad, size * loops, tag);
        const t0 = now();
        for (let i = 0; i < loops; i++) c.update(ct);
        return now() - t0;
      });
    }
    let accepted = 0; let total = 0;
    const res = await batches(wkey, nb, async () => {
      const t0 = now();
      for (let i = 0; i < loops; i++) {
        const c = e.start(key, iv, false, aad, size, tag);
        c.update(ct);
        try { c.final(); accepted++; } catch { /* rejected */ }
      }
      total += loops;
      return now() - t0;
    });
    if (forged ? accepted !== 0 : accepted !== total) {
      throw new Fail(`${p.name}: ${accepted} of ${total} ${forged ? 'forged messages were accepted' : 'valid messages were accepted'}`);
    }
    return res;
  }
  lib(p, () => { const c = e.start(key, iv, enc, aad, size); c.update(buf); if (enc || !aead) c.final(); });
  if (workload === 'bulk' && (e.stream ?? true)) {
    return batches(wkey, nb, async () => {
      const c = e.start(key, iv, enc, aad, size * loops);
      const t0 = now();
      for (let i = 0; i < loops; i++) c.update(buf);
      return now() - t0;
    });
  }
  // message / rekey (and CCM bulk): createCipheriv (key + IV) and a whole message per call
  const bulk = workload === 'bulk';
  return batches(wkey, nb, async () => {
    const t0 = now();
    for (let i = 0; i < loops; i++) {
      const c = e.start(key, bulk ? iv : ivw, enc, aad, size);
      c.update(buf);
      c.final();
      if (aead) c.getAuthTag();
      if (enc && !bulk) bump(ivw);
    }
    return now() - t0;
  });
}

// ct-sample (docs/protocol.md): single encryptions of a fixed and a random class, interleaved
// in an order drawn from the seed, each timed alone with process.hrtime. node:crypto sets key
// and IV in one call, so every call includes key setup (the fixed key's, for vary
// "plaintext"). WebCrypto answers unsupported: its calls are promises, and timing one
// would time the event loop.
function splitmix64(seed) {
  let s = BigInt.asUintN(64, BigInt(seed));
  return () => {
    s = BigInt.asUintN(64, s + 0x9e3779b97f4a7c15n);
    let z = s;
    z = BigInt.asUintN(64, (z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n);
    z = BigInt.asUintN(64, (z ^ (z >> 27n)) * 0x94d049bb133111ebn);
    return z ^ (z >> 31n);
  };
}

function ctSample(req) {
  const { e, web } = target(req);
  const p = e.prim;
  if (p.kind === 'hash') throw new Unsupported(`${p.name} is a hash: ct-sample times ciphers`);
  if (web) throw new Unsupported('WebCrypto calls are promises: a single call cannot be timed alone');
  const vary = str(req, 'vary');
  if (vary !== 'key' && vary !== 'plaintext') throw new Fail("vary must be 'key' or 'plaintext'");
  const samples = count(req, 'samples', 0, true); const seed = count(req, 'seed', 0, true);
  if (samples < 2 || samples > 1000000) throw new Fail('samples must be in 2..1000000');
  const key = unhex(req, 'key', true); const iv = unhex(req, 'iv'); const aad = unhex(req, 'aad');
  const msg = unhex(req, 'input', true);
  checkLengths(p, key, iv, aad);
  if (msg.length < 1 || msg.length > 65536) throw new Fail('input must be 1 to 65536 bytes');
  checkInput(p, msg.length);
  const next = splitmix64(seed);
  const classes = Array.from({ length: samples }, () => Number(next() >> 63n));
  const fixed = vary === 'key' ? key : msg;
  // every call its own buffer, the fixed class a copy: the classes differ in their values, never
  // in where they lie (one shared fixed buffer, always cached, reads as a leak)
  const inputs = classes.map((c) => (c ? Buffer.from(Array.from({ length: fixed.length }, () => Number(next() >> 56n))) : Buffer.from(fixed)));
  const call = vary === 'key'
    ? (x) => { const c = e.start(x, iv, true, aad, msg.length); c.update(msg); c.final(); }
    : (x) => { const c = e.start(key, iv, true, aad, x.length); c.update(x); c.final(); };
  for (const x of inputs.slice(0, 1000)) lib(p, () => call(x)); // warm-up, untimed
  const times = new Array(samples);
  for (let i = 0; i < samples; i++) {
    const t0 = process.hrtime.bigint();
    call(inputs[i]);
    times[i] = Number(process.hrtime.bigint() - t0);
  }
  return { status: 'ok', vary, samples, timer: 'process.hrtime.bigint ns', classes, times };
}

// The optional "fill" and "digest" fields of encrypt/decrypt (docs/protocol.md), handled
// around crypt(): "fill" {seed, bytes} puts SHA-256(seed || 0) || SHA-256(seed || 1) || ...
// (8-byte big-endian counters, cut to `bytes`) before "input"; "digest" "sha256" answers
// "output_sha256" instead of "output".
const FILL_MAX = 64 * 1024 * 1024;
// crypto.hash (one-shot, Node >= 20.12) costs half of createHash() per 40-byte block
const sha256 = crypto.hash ? (b) => crypto.hash('sha256', b, 'buffer') : (b) => crypto.createHash('sha256').update(b).digest();
function fillBytes(seed, n) {
  const blocks = Math.ceil(n / 32);
  const out = Buffer.allocUnsafe(blocks * 32);
  const msg = Buffer.concat([seed, Buffer.alloc(8)]); // seed || counter
  for (let i = 0; i < blocks; i++) {
    msg.writeUInt32BE(Math.floor(i / 2 ** 32), seed.length); msg.writeUInt32BE(i >>> 0, seed.length + 4);
    sha256(msg).copy(out, 32 * i);
  }
  return out.subarray(0, n);
}
async function cryptRequest(req, enc) {
  const { digest, fill } = req;
  if (digest != null && digest !== 'sha256') throw new Fail(`field 'digest' must be "sha256", got ${JSON.stringify(digest)}`);
  if (fill != null) {
    if (typeof fill !== 'object' || Array.isArray(fill)) throw new Fail('field \'fill\' must be an object {"seed": hex, "bytes": N}');
    const { seed, bytes } = fill;
    if (typeof seed !== 'string' || seed.length % 2 || !/^[0-9a-fA-F]*$/.test(seed)) {
      throw new Fail(`field 'fill.seed' must be a hex string, got ${JSON.stringify(seed) ?? 'none'}`);
    }
    if (!Number.isSafeInteger(bytes) || bytes < 0 || bytes > FILL_MAX) {
      throw new Fail(`field 'fill.bytes' must be an integer from 0 to ${FILL_MAX}, got ${JSON.stringify(bytes) ?? 'none'}`);
    }
    const data = Buffer.concat([fillBytes(Buffer.from(seed, 'hex'), bytes), unhex(req, 'input', true)]);
    req = { ...req, input: data.toString('hex') };
  }
  const resp = await crypt(req, enc);
  if (fill != null) resp.filled = true;
  if (digest != null && 'output' in resp) { // a rejected forgery has neither
    resp.output_sha256 = sha256(Buffer.from(resp.output, 'hex')).toString('hex');
    delete resp.output;
  }
  return resp;
}

async function handle(req) {
  const op = str(req, 'op');
  if (op === 'hello') return hello();
  if (op === 'encrypt' || op === 'decrypt') return cryptRequest(req, op === 'encrypt');
  if (op === 'hash') return hashOnce(req);
  if (op === 'bench') return bench(req);
  if (op === 'cpu-clock') throw new Unsupported('the Node runner has no cpu-clock (no cycle-exact add chain in JavaScript)');
  if (op === 'ct-sample') return ctSample(req);
  throw new Fail(`unknown op '${op}'; accepted: hello, encrypt, decrypt, hash, bench, cpu-clock, ct-sample, quit`);
}

// ------------------------------------------------------------------ main loop
function write(obj) {
  return new Promise((resolve) => {
    if (process.stdout.write(`${JSON.stringify(obj)}\n`)) resolve();
    else process.stdout.once('drain', resolve);
  });
}

async function main() {
  let setupError = null;
  try {
    REG = loadRegistry();
    IMPLS = [...buildImplementations(REG), ...await nobleImplementations(REG)];
  } catch (err) {
    setupError = `the runner cannot read the registry (run runners/node/build.sh): ${err.message}`;
    process.stderr.write(`node runner: ${setupError}\n`);
  }
  const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity, terminal: false });
  for await (const line of rl) {
    let resp; let id = null;
    try {
      if (setupError) throw new Fail(setupError);
      if (!line.trim()) throw new Fail('blank line: a request must be a JSON object');  // every line is answered
      let req;
      try { req = JSON.parse(line); } catch (err) { throw new Fail(`malformed request: not JSON (${err.message})`); }
      if (req === null || typeof req !== 'object' || Array.isArray(req)) throw new Fail('a request must be a JSON object');
      // JSON.parse makes 1e999 Infinity, which JSON.stringify would echo as null: refused
      if (typeof req.id === 'number' && !Number.isFinite(req.id)) throw new Fail('malformed request: id is a number out of range');
      id = req.id ?? null;
      if (req.op === 'quit') break;
      resp = await handle(req);
    } catch (err) {
      if (err instanceof Unsupported) resp = { status: 'unsupported', message: err.message };
      else if (err instanceof Fail) resp = { status: 'error', message: err.message };
      else resp = { status: 'error', message: `internal error: ${err && err.message}` };
    }
    resp.id = id;
    await write(resp);
  }
  rl.close();
  process.exitCode = 0;
  process.stdin.destroy();
}

main();
