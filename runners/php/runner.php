<?php
// cipherbench runner for PHP (protocol v1, docs/protocol.md): JSON lines on
// stdin/stdout. Implementations: php-openssl (ext-openssl), php-mcrypt (PECL
// mcrypt on libmcrypt), php-sodium (ext-sodium), php-hash (ext-hash).
// argv[1] = the registry expanded to JSON by build.sh.
declare(strict_types=1);

final class Fail extends Exception {}
final class Unsup extends Exception {}

// Library warnings become error answers. PECL mcrypt marks every function deprecated in
// PHP 8: those notices are silenced (PHP still raises one per call; see README).
error_reporting(E_ALL & ~E_DEPRECATED & ~E_USER_DEPRECATED);
set_error_handler(function (int $no, string $msg) {
    throw new Fail(preg_replace('/^\w+\(\): /', '', $msg));
}, E_ALL & ~E_DEPRECATED & ~E_USER_DEPRECATED);

// ------------------------------------------------------------------ the one mapping table
// canonical cipher id => [library name pattern, key bits offered, registry modes => library mode]
// php-openssl: "%k" = key bits, "%m" = OpenSSL mode name.
const OPENSSL_BLOCK = [
    'aes'      => ['aes-%k-%m', [128, 192, 256], ['ecb' => 'ecb', 'cbc' => 'cbc', 'cfb' => 'cfb', 'cfb8' => 'cfb8', 'ofb' => 'ofb', 'ctr' => 'ctr', 'gcm' => 'gcm', 'ccm' => 'ccm', 'ocb' => 'ocb', 'xts' => 'xts']],
    'aria'     => ['aria-%k-%m', [128, 192, 256], ['ecb' => 'ecb', 'cbc' => 'cbc', 'cfb' => 'cfb', 'ofb' => 'ofb', 'ctr' => 'ctr', 'gcm' => 'gcm', 'ccm' => 'ccm']],
    'camellia' => ['camellia-%k-%m', [128, 192, 256], ['ecb' => 'ecb', 'cbc' => 'cbc', 'cfb' => 'cfb', 'ofb' => 'ofb', 'ctr' => 'ctr']],
    'sm4'      => ['sm4-%m', [128], ['ecb' => 'ecb', 'cbc' => 'cbc', 'cfb' => 'cfb', 'ofb' => 'ofb', 'ctr' => 'ctr']],
    'des'      => ['des-%m', [56], ['ecb' => 'ecb', 'cbc' => 'cbc', 'cfb' => 'cfb', 'cfb8' => 'cfb8', 'ofb' => 'ofb']],
    '3des'     => [['112' => 'des-ede-%m', '168' => 'des-ede3-%m'], [112, 168], ['ecb' => 'ecb', 'cbc' => 'cbc', 'cfb' => 'cfb', 'cfb8' => 'cfb8', 'ofb' => 'ofb']],
    'desx'     => ['desx-%m', [184], ['cbc' => 'cbc']],
    'blowfish' => ['bf-%m', [128, 448], ['ecb' => 'ecb', 'cbc' => 'cbc', 'cfb' => 'cfb', 'ofb' => 'ofb']],
    'cast5'    => ['cast5-%m', [128], ['ecb' => 'ecb', 'cbc' => 'cbc', 'cfb' => 'cfb', 'ofb' => 'ofb']],
    'seed'     => ['seed-%m', [128], ['ecb' => 'ecb', 'cbc' => 'cbc', 'cfb' => 'cfb', 'ofb' => 'ofb']],
    'rc2'      => ['rc2-%m', [128], ['ecb' => 'ecb', 'cbc' => 'cbc', 'cfb' => 'cfb', 'ofb' => 'ofb']],
    'idea'     => ['idea-%m', [128], ['ecb' => 'ecb', 'cbc' => 'cbc', 'cfb' => 'cfb', 'ofb' => 'ofb']],
];
const OPENSSL_OTHER = ['chacha20' => 'chacha20', 'chacha20-poly1305' => 'chacha20-poly1305', 'rc4' => 'rc4'];
const OPENSSL_HASH = [
    'md2' => 'md2', 'md4' => 'md4', 'md5' => 'md5', 'sha-1' => 'sha1', 'sha-224' => 'sha224', 'sha-256' => 'sha256',
    'sha-384' => 'sha384', 'sha-512' => 'sha512', 'sha-512-256' => 'sha512-256', 'sha3-224' => 'sha3-224',
    'sha3-256' => 'sha3-256', 'sha3-384' => 'sha3-384', 'sha3-512' => 'sha3-512', 'blake2b-512' => 'blake2b512',
    'blake2s-256' => 'blake2s256', 'ripemd-160' => 'ripemd160', 'sm3' => 'sm3', 'whirlpool' => 'whirlpool',
];
// php-mcrypt: cipher id => [libmcrypt algorithm, key bits offered]; registry mode => libmcrypt mode
// (libmcrypt's "cfb"/"ofb" are 8-bit feedback; "ncfb"/"nofb" are full-block).
// libmcrypt's rc2, cast-256 and saferplus compute their own variants, which the registry
// names rc2e1024 (1024 effective key bits), cast256le (little-endian words) and
// saferpluswr (32-bit words in reverse order). Left out, because they match no registry
// variant (checked against the published vectors): loki97 (32-bit words byte-swapped),
// gost (another S-box set than the GOST R 34.11-94 test parameters), blowfish-compat
// (little-endian Blowfish); wake and enigma are not in the registry.
const MCRYPT_BLOCK = [
    'aes' => ['rijndael-128', [128, 192, 256]], 'rijndael192' => ['rijndael-192', [128, 192, 256]],
    'rijndael256' => ['rijndael-256', [128, 192, 256]], 'twofish' => ['twofish', [128, 192, 256]],
    'serpent' => ['serpent', [128, 192, 256]], 'xtea' => ['xtea', [128]], 'blowfish' => ['blowfish', [128, 448]],
    'cast5' => ['cast-128', [128]], 'des' => ['des', [56]], '3des' => ['tripledes', [112, 168]],
    'rc2e1024' => ['rc2', [128]], 'cast256le' => ['cast-256', [128, 192, 256]],
    'saferpluswr' => ['saferplus', [128, 192, 256]],
];
const MCRYPT_MODES = ['ecb' => 'ecb', 'cbc' => 'cbc', 'cfb' => 'ncfb', 'cfb8' => 'cfb', 'ofb' => 'nofb', 'ctr' => 'ctr'];
const MCRYPT_STREAM = ['rc4' => 'arcfour'];
// php-sodium: canonical name => function prefix / kind
const SODIUM = [
    'chacha20-poly1305' => ['aead', 'sodium_crypto_aead_chacha20poly1305_ietf'],
    'xchacha20-poly1305' => ['aead', 'sodium_crypto_aead_xchacha20poly1305_ietf'],
    'aes-256-gcm' => ['aead', 'sodium_crypto_aead_aes256gcm'],
    'xchacha20' => ['stream', 'sodium_crypto_stream_xchacha20_xor'],
    'xsalsa20' => ['stream', 'sodium_crypto_stream_xor'],
    'blake2b-512' => ['hash', 64], 'blake2b-256' => ['hash', 32],
];
// php-hash (ext-hash, PHP's own C code)
const PHPHASH = [
    'md2' => 'md2', 'md4' => 'md4', 'md5' => 'md5', 'sha-1' => 'sha1', 'sha-224' => 'sha224', 'sha-256' => 'sha256',
    'sha-384' => 'sha384', 'sha-512' => 'sha512', 'sha-512-256' => 'sha512/256', 'sha3-224' => 'sha3-224',
    'sha3-256' => 'sha3-256', 'sha3-384' => 'sha3-384', 'sha3-512' => 'sha3-512', 'ripemd-160' => 'ripemd160',
    'whirlpool' => 'whirlpool', 'tiger' => 'tiger192,3',
];

// ------------------------------------------------------------------ helpers
function unhex(object $req, string $f, bool $required = false): string {
    if (!property_exists($req, $f) || $req->$f === null) {
        if ($required) throw new Fail("missing field '$f'");
        return '';
    }
    $s = $req->$f;
    if (!is_string($s)) throw new Fail("field '$f' must be a hex string");
    if (strlen($s) % 2) throw new Fail("field '$f' has an odd number of hex digits");
    if ($s !== '' && !ctype_xdigit($s)) throw new Fail("field '$f' is not hex");
    return hex2bin($s);
}

function str(object $req, string $f, ?string $dflt = null): string {
    if (!property_exists($req, $f)) {
        if ($dflt !== null) return $dflt;
        throw new Fail("missing field '$f'");
    }
    if (!is_string($req->$f)) throw new Fail("field '$f' must be a string");
    return $req->$f;
}

function count_field(object $req, string $f, ?int $dflt): int {
    if (!property_exists($req, $f)) {
        if ($dflt === null) throw new Fail("missing field '$f'");
        return $dflt;
    }
    $v = $req->$f;
    if (!is_int($v) || $v < 0) throw new Fail("field '$f' must be a non-negative integer");
    return $v;
}

function modules_info(): string {  // phpinfo() of the loaded extensions: run-time library versions
    static $info = null;
    if ($info === null) { ob_start(); phpinfo(INFO_MODULES); $info = ob_get_clean(); }
    return $info;
}

function cpu_flag(string $flag): bool {  // x86 /proc/cpuinfo flag, for provider strings
    static $flags = null;
    if ($flags === null) {
        $c = @file_get_contents('/proc/cpuinfo') ?: '';
        $flags = preg_match('/^flags\s*:\s*(.*)$/m', $c, $m) ? array_flip(explode(' ', trim($m[1]))) : [];
    }
    return isset($flags[$flag]);
}

// The features of a path through the system's OpenSSL (docs/protocol.md, `features`), by
// OpenSSL's own x86-64 rules as the engine's OpenSSL adapter reads them
// (engine/adapters/openssl/adapter.cpp, features_of): AES-NI for AES; for GCM its AVX-512
// VAES body from 3.1 on where the CPU has AVX512F, DQ, BW, VL, VAES and VPCLMULQDQ, else
// AES-NI + PCLMUL; XTS's VAES bodies from 3.4 on, GCM-SIV and SIV are not followed; SHA-NI
// for SHA-1/SHA-224/SHA-256; C for the legacy ciphers OpenSSL has no assembly for. null
// (unknown) elsewhere, off x86-64, and where OPENSSL_ia32cap masks what CPUID says.
function openssl_features(array $p, string $runtime): ?array {
    if (php_uname('m') !== 'x86_64' || getenv('OPENSSL_ia32cap') !== false) return null;
    $v = preg_match('/(\d+)\.(\d+)/', $runtime, $m) ? [(int)$m[1], (int)$m[2]] : [0, 0];
    $at = fn(int $a, int $b) => $v[0] > $a || ($v[0] === $a && $v[1] >= $b);
    $family = $p['family'] ?? '';
    $mode = $p['mode'] ?? '';
    if ($family === 'aes') {
        if (!cpu_flag('aes')) return null;
        if ($mode === 'gcm') {
            $vaes = $at(3, 1);
            foreach (['avx512f', 'avx512dq', 'avx512bw', 'avx512vl', 'vaes', 'vpclmulqdq'] as $f) $vaes = $vaes && cpu_flag($f);
            return $vaes ? ['vaes', 'vpclmul', 'avx512'] : (cpu_flag('pclmulqdq') ? ['aes-ni', 'pclmul'] : null);
        }
        if (($mode === 'xts' && $at(3, 4)) || in_array($mode, ['gcmsiv', 'siv'], true)) return null;
        return ['aes-ni'];
    }
    if (in_array($p['name'], ['sha-1', 'sha-224', 'sha-256'], true)) return cpu_flag('sha_ni') ? ['sha-ni'] : null;
    return in_array($family, ['blowfish', 'cast5', 'des', '3des', 'desx', 'idea', 'seed', 'rc2'], true) ? ['portable'] : null;
}

function bump(string $iv): string {  // next nonce: big-endian increment
    for ($j = strlen($iv) - 1; $j >= 0; $j--) {
        $b = (ord($iv[$j]) + 1) & 0xff;
        $iv[$j] = chr($b);
        if ($b) break;
    }
    return $iv;
}

function buffer(int $n): string {  // byte i = i mod 256
    $block = '';
    for ($i = 0; $i < 256; $i++) $block .= chr($i);
    return substr(str_repeat($block, intdiv($n, 256) + 1), 0, $n);
}

// ------------------------------------------------------------------ the probe
// The bench request's `probe` (docs/protocol.md, "bench"): engine/src/probe.c's cb_probe, which
// build.sh compiles into libcb_probe.so beside the registry file, called through FFI (Debian's
// ffi.enable=preload lets the CLI use FFI::cdef) once before a request's first timed batch and
// once after each, outside the timed interval. Without the library or FFI the field is ignored.
final class Probe {
    private static ?FFI $lib = null;
    private static ?FFI\CData $out = null;
    private static int $k = 0;  // thousands of additions a reading; 0: no readings
    private static array $readings = [];  // [serial ns, parallel ns, switches or null] in order
    private static ?FFI $switches = null;  // cb_preemptions, where the library has it

    public static function load(string $path): void {
        if (!class_exists('FFI') || !is_file($path)) return;
        try {
            self::$lib = FFI::cdef('void cb_probe(uint64_t k, uint64_t out[2]);', $path);
            self::$out = self::$lib->new('uint64_t[2]');
        } catch (Throwable $e) {
            fwrite(STDERR, "runner.php: the probe is not loaded, so the bench field probe is ignored: {$e->getMessage()}\n");
            self::$lib = null;
            return;
        }
        try {  // a library built before cb_preemptions has no such symbol: no probe_switches then
            self::$switches = FFI::cdef('uint64_t cb_preemptions(void);', $path);
        } catch (Throwable) {
            self::$switches = null;
        }
    }

    // A bench request's start (k from its `probe`) and its end (k = 0): the readings restart.
    public static function start(int $k): void {
        self::$k = self::$lib === null ? 0 : $k;
        self::$readings = [];
    }

    private static function read(): void {
        self::$lib->cb_probe(self::$k, self::$out);
        // right after the reading, on this (the only, timing) thread; FFI gives uint64_t as a
        // signed int, so cb_preemptions' UINT64_MAX (unknown) arrives as -1
        $n = self::$switches?->cb_preemptions();
        self::$readings[] = [self::$out[0], self::$out[1], $n === null || $n < 0 ? null : $n];
    }

    // Right before a timed batch: the request's first reading, if none has been taken.
    public static function before(): void {
        if (self::$k !== 0 && !self::$readings) self::read();
    }

    // Right after a timed batch.
    public static function after(): void {
        if (self::$k !== 0) self::read();
    }

    // The answer's probe fields for its $batches batches: none when no probe was asked. A loop
    // that timed batches without the probe on both sides is this runner's bug, said so.
    public static function fields(int $batches): array {
        if (self::$k === 0) return [];
        if (count(self::$readings) !== $batches + 1)
            throw new Fail('the probe ran ' . count(self::$readings) . " times around $batches timed batches");
        $r = ['probe_cycles' => self::$k * 1000, 'probe_ns' => array_column(self::$readings, 0),
              'probe_parallel_ns' => array_column(self::$readings, 1)];
        $switches = array_column(self::$readings, 2);
        if (!in_array(null, $switches, true)) $r['probe_switches'] = $switches;
        return $r;
    }
}

// ------------------------------------------------------------------ implementations
abstract class Impl {
    public array $offers = [];  // canonical name => provider (the code path in words)
    public array $features = [];  // canonical name => the same path's features; absent: unknown
    public array $notes = [];
    public string $reason = '';
    abstract public function name(): string;
    abstract public function library(): string;
    abstract public function version(): string;
    // Encrypt: returns [out, tag]; decrypt: returns out, or null when the tag is rejected.
    // $parts: null, or the lengths of consecutive library calls (the "chunks" field).
    abstract public function crypt(array $p, bool $enc, string $key, string $iv, string $aad, string $in, string $tag,
                                   ?array $parts = null);
    public function hash(array $p, string $in): string { throw new Fail("$p[name] is not a hash"); }
    // Returns the list of ns per batch.
    abstract public function bench(array $p, string $op, string $wl, int $size, int $loops, int $batches,
                                   string $key, string $iv, string $aad): array;
}

class OpenSSLImpl extends Impl {
    const F = OPENSSL_RAW_DATA | OPENSSL_ZERO_PADDING;
    public array $lib = [];  // canonical => OpenSSL name

    public function __construct(array $reg) {
        $ciphers = array_flip(openssl_get_cipher_methods());
        foreach (OPENSSL_BLOCK as $cid => [$pat, $kbs, $modes]) {
            foreach ($kbs as $kb) foreach ($modes as $m => $om) {
                $name = "$cid-$kb-$m";
                $pt = is_array($pat) ? $pat[(string)$kb] : $pat;
                $this->candidate($reg, $ciphers, $name, str_replace(['%k', '%m'], [(string)$kb, $om], $pt));
            }
        }
        foreach (OPENSSL_OTHER as $name => $on) $this->candidate($reg, $ciphers, $name, $on);
        $info = modules_info();
        $this->runtime = preg_match('/^OpenSSL Library Version => (.*)$/m', $info, $mm) ? trim($mm[1]) : OPENSSL_VERSION_TEXT;
        foreach (array_keys($this->offers) as $name) {
            $f = openssl_features($reg[$name], $this->runtime);
            if ($f !== null) $this->features[$name] = $f;
            if ($f === ['portable']) $this->offers[$name] = str_replace('(OpenSSL assembly or C;', '(C;', $this->offers[$name]);
            if (($reg[$name]['mode'] ?? '') === 'gcm' && $f !== null) $this->offers[$name] = str_replace('(AES-NI;',
                in_array('vaes', $f, true) ? '(AES-GCM with VAES + VPCLMULQDQ, AVX-512;' : '(AES-NI + PCLMUL;', $this->offers[$name]);
        }
        $mds = array_flip(openssl_get_md_methods());
        foreach (OPENSSL_HASH as $name => $on) {
            if (!isset($reg[$name]) || !isset($mds[$on])) continue;
            try { if (openssl_digest('abc', $on, true) === false) continue; } catch (Fail $e) { continue; }
            $this->lib[$name] = $on;
            $hw = in_array($name, ['sha-1', 'sha-224', 'sha-256'], true) && cpu_flag('sha_ni') ? 'SHA-NI' : 'OpenSSL assembly or C';
            $this->offers[$name] = "OpenSSL $on ($hw; one-shot openssl_digest per call)";
            $f = openssl_features($reg[$name], $this->runtime);
            if ($f !== null) $this->features[$name] = $f;
        }
        $this->notes['openssl_header_version'] = OPENSSL_VERSION_TEXT;
        $this->notes['openssl_conf'] = getenv('OPENSSL_CONF') ?: '(default)';
    }
    public string $runtime = '';

    private function candidate(array $reg, array $ciphers, string $name, string $on): void {
        if (!isset($reg[$name]) || !isset($ciphers[$on])) return;
        $p = $reg[$name];
        // It must really run: one encryption through the same call the runner makes.
        try {
            $this->lib[$name] = $on;
            [$out] = $this->crypt($p, true, buffer($p['key_bytes']), str_repeat("\1", $p['iv_bytes']), '',
                                  str_repeat("\0", max($p['block_bytes'], 16)), '');
        } catch (Fail $e) { unset($this->lib[$name]); return; }
        $accel = $p['family'] === 'aes' ? (cpu_flag('aes') ? 'AES-NI' : 'no AES-NI: vector-permute or table code')
            : 'OpenSSL assembly or C';
        $this->offers[$name] = "OpenSSL $on ($accel; one-shot openssl_encrypt per call)";
    }

    public function name(): string { return 'php-openssl'; }
    public function library(): string { return 'ext-openssl on ' . $this->runtime; }
    public function version(): string { return PHP_VERSION . ' / ' . $this->runtime; }

    private function iv(array $p, string $iv): string {
        return $p['name'] === 'chacha20' ? "\0\0\0\0" . $iv : $iv;  // OpenSSL: 32-bit LE counter || 96-bit nonce
    }

    private function fail(string $what): Fail {
        $e = [];
        while (($x = openssl_error_string()) !== false) $e[] = $x;
        return new Fail("$what failed" . ($e ? ': ' . implode('; ', $e) : ''));
    }

    public function crypt(array $p, bool $enc, string $key, string $iv, string $aad, string $in, string $tag,
                          ?array $parts = null) {
        if ($parts !== null) throw new Unsup('ext-openssl has only one-shot calls: it cannot take a message in pieces');
        $on = $this->lib[$p['name']];
        $iv = $this->iv($p, $iv);
        if ($p['kind'] === 'aead') {
            if ($enc) {
                $t = '';
                $out = openssl_encrypt($in, $on, $key, self::F, $iv, $t, $aad, $p['tag_bytes']);
                if ($out === false) throw $this->fail('openssl_encrypt');
                return [$out, $t];
            }
            $out = openssl_decrypt($in, $on, $key, self::F, $iv, $tag, $aad);
            while (openssl_error_string() !== false) {}
            return $out === false ? null : $out;
        }
        // Nothing to encrypt gives nothing (OpenSSL's one-shot XTS refuses an empty update).
        if ($in === '') return $enc ? ['', ''] : '';
        $out = $enc ? openssl_encrypt($in, $on, $key, self::F, $iv) : openssl_decrypt($in, $on, $key, self::F, $iv);
        if ($out === false) throw $this->fail($enc ? 'openssl_encrypt' : 'openssl_decrypt');
        return $enc ? [$out, ''] : $out;
    }

    public function hash(array $p, string $in): string {
        $d = openssl_digest($in, $this->lib[$p['name']], true);
        if ($d === false) throw $this->fail('openssl_digest');
        return $d;
    }

    public function bench(array $p, string $op, string $wl, int $size, int $loops, int $batches,
                          string $key, string $iv, string $aad): array {
        $buf = buffer($size);
        $ns = [];
        $on = $this->lib[$p['name']];
        $f = self::F;
        if ($op === 'hash') {
            // ext-openssl has no streaming digest: every call is one openssl_digest.
            for ($b = 0; $b < $batches; $b++) {
                Probe::before();
                $t0 = hrtime(true);
                for ($i = 0; $i < $loops; $i++) openssl_digest($buf, $on, true);
                $ns[] = hrtime(true) - $t0;
                Probe::after();
            }
            return $ns;
        }
        if ($op === 'keysetup' || $op === 'keysetup-decrypt')
            throw new Unsup('ext-openssl has no key-setup-only call (every openssl_encrypt sets the key)');
        $bumpiv = $wl !== 'bulk';
        $chacha = $p['name'] === 'chacha20';
        $xiv = $this->iv($p, $iv);
        if ($p['kind'] === 'aead') {
            $tl = $p['tag_bytes'];
            if ($op === 'encrypt') {
                for ($b = 0; $b < $batches; $b++) {
                    $t = '';
                    Probe::before();
                    $t0 = hrtime(true);
                    if ($bumpiv) for ($i = 0; $i < $loops; $i++) { openssl_encrypt($buf, $on, $key, $f, $iv, $t, $aad, $tl); $iv = bump($iv); }
                    else for ($i = 0; $i < $loops; $i++) openssl_encrypt($buf, $on, $key, $f, $iv, $t, $aad, $tl);
                    $ns[] = hrtime(true) - $t0;
                    Probe::after();
                }
                return $ns;
            }
            // decrypt / decrypt-forged: a valid message prepared outside the timing; every call checks the tag.
            $t = '';
            $ct = openssl_encrypt($buf, $on, $key, $f, $iv, $t, $aad, $tl);
            if ($ct === false) throw $this->fail('openssl_encrypt');
            if ($op === 'decrypt-forged') $t[0] = chr(ord($t[0]) ^ 1);
            $acc = 0;
            for ($b = 0; $b < $batches; $b++) {
                Probe::before();
                $t0 = hrtime(true);
                for ($i = 0; $i < $loops; $i++) if (openssl_decrypt($ct, $on, $key, $f, $iv, $t, $aad) !== false) $acc++;
                $ns[] = hrtime(true) - $t0;
                Probe::after();
            }
            while (openssl_error_string() !== false) {}
            check_accepted($p, $op, $acc, $loops * $batches);
            return $ns;
        }
        if ($op === 'decrypt-forged') throw new Fail('decrypt-forged applies to AEADs only');
        $fn = $op === 'encrypt' ? 'openssl_encrypt' : 'openssl_decrypt';
        for ($b = 0; $b < $batches; $b++) {
            Probe::before();
            $t0 = hrtime(true);
            if (!$bumpiv) for ($i = 0; $i < $loops; $i++) $fn($buf, $on, $key, $f, $xiv);
            elseif ($op === 'decrypt') for ($i = 0; $i < $loops; $i++) $fn($buf, $on, $key, $f, $xiv);  // decrypt: same message
            elseif ($chacha) for ($i = 0; $i < $loops; $i++) { $fn($buf, $on, $key, $f, "\0\0\0\0" . $iv); $iv = bump($iv); }
            else for ($i = 0; $i < $loops; $i++) { $fn($buf, $on, $key, $f, $iv); $iv = bump($iv); }
            $ns[] = hrtime(true) - $t0;
            Probe::after();
        }
        return $ns;
    }
}

class McryptImpl extends Impl {
    public array $lib = [];  // canonical => [algorithm, mode]
    private array $tds = [];

    public function __construct(array $reg) {
        foreach (MCRYPT_BLOCK as $cid => [$alg, $kbs]) foreach ($kbs as $kb) foreach (MCRYPT_MODES as $m => $mm) {
            $name = "$cid-$kb-$m";
            if (isset($reg[$name])) $this->candidate($name, $alg, $mm, $reg[$name]);
        }
        foreach (MCRYPT_STREAM as $name => $alg) if (isset($reg[$name])) $this->candidate($name, $alg, 'stream', $reg[$name]);
    }

    private function candidate(string $name, string $alg, string $mode, array $p): void {
        try { $td = mcrypt_module_open($alg, '', $mode, ''); } catch (Fail $e) { return; }
        if ($td === false) return;
        if ($p['block_bytes'] && mcrypt_enc_get_block_size($td) !== $p['block_bytes']) return;
        $this->tds["$alg/$mode"] = $td;
        $this->lib[$name] = [$alg, $mode];
        $this->offers[$name] = "libmcrypt $alg/$mode (portable C" . (str_starts_with($alg, 'rijndael') ? ', no AES-NI' : '') . ')';
        $this->features[$name] = ['portable'];
    }

    // libmcrypt 2.5.8 ncfb.c (xor_stuff_en/de with s_register_pos != 0) copies the wrong bytes
    // into the shift register when a call continues a message after a partial block, so the
    // output from there on is wrong (the same bug is guarded in engine/adapters/mcrypt). One
    // call per message, and calls of whole blocks, are right; nothing else is offered.
    const NCFB_BUG = 'libmcrypt ncfb (full-block CFB) cannot continue a message after a partial block';

    public function name(): string { return 'php-mcrypt'; }
    public function library(): string { return 'PECL mcrypt on libmcrypt'; }
    public function version(): string {
        $lib = preg_match('/^mcrypt support.*?^Library version => (\S+)/ms', modules_info(), $m) ? $m[1] : 'unknown';
        return phpversion('mcrypt') . ' / libmcrypt ' . $lib;
    }

    private function td(array $p) { [$a, $m] = $this->lib[$p['name']]; return $this->tds["$a/$m"]; }

    // 3DES-112 is two-key EDE: K1 K2 K1, given to libmcrypt's three-key tripledes.
    private static function key(array $p, string $key): string {
        return $p['name'] !== '' && str_starts_with($p['name'], '3des-112-') ? $key . substr($key, 0, 8) : $key;
    }

    private function ivFor($td, string $iv): string {
        $n = mcrypt_enc_get_iv_size($td);
        return $iv === '' ? str_repeat("\0", $n) : $iv;  // ECB and the stream mode ignore it
    }

    public function crypt(array $p, bool $enc, string $key, string $iv, string $aad, string $in, string $tag,
                          ?array $parts = null) {
        if ($in === '') return $enc ? ['', ''] : '';  // mcrypt_generic refuses empty strings; nothing to do
        $td = $this->td($p);
        if ($parts !== null && $this->lib[$p['name']][1] === 'ncfb') {
            $at = 0;
            foreach (array_slice($parts, 0, -1) as $len) {
                $at += $len;
                if ($at % $p['block_bytes']) throw new Unsup(self::NCFB_BUG . ": a piece ends $at bytes in");
            }
        }
        mcrypt_generic_init($td, self::key($p, $key), $this->ivFor($td, $iv));
        $out = '';
        $at = 0;
        foreach ($parts ?? [strlen($in)] as $len) {
            $piece = substr($in, $at, $len);
            $out .= $enc ? mcrypt_generic($td, $piece) : mdecrypt_generic($td, $piece);
            $at += $len;
        }
        mcrypt_generic_deinit($td);
        return $enc ? [$out, ''] : $out;
    }

    public function bench(array $p, string $op, string $wl, int $size, int $loops, int $batches,
                          string $key, string $iv, string $aad): array {
        if ($op === 'decrypt-forged') throw new Fail('decrypt-forged applies to AEADs only');
        if ($op === 'hash') throw new Fail("$p[name] is not a hash");
        $td = $this->td($p);
        $key = self::key($p, $key);
        $iv = $this->ivFor($td, $iv);
        $ns = [];
        if ($op === 'keysetup' || $op === 'keysetup-decrypt') {
            // mcrypt_generic_init runs the key schedule (both directions) and sets the IV.
            for ($b = 0; $b < $batches; $b++) {
                Probe::before();
                $t0 = hrtime(true);
                for ($i = 0; $i < $loops; $i++) mcrypt_generic_init($td, $key, $iv);
                $ns[] = hrtime(true) - $t0;
                Probe::after();
            }
            mcrypt_generic_deinit($td);
            return $ns;
        }
        if ($size === 0) throw new Fail('php-mcrypt cannot process empty messages (mcrypt_generic refuses them): size must be at least 1');
        [$alg, $mode] = $this->lib[$p['name']];
        if ($mode === 'ncfb' && $wl === 'bulk' && $size % $p['block_bytes'])
            throw new Unsup(self::NCFB_BUG . ": bulk calls of $size bytes would time the broken path; "
                            . "use a multiple of $p[block_bytes] bytes");
        $buf = buffer($size);
        $enc = $op === 'encrypt';
        $bumpiv = $enc && $wl !== 'bulk' && $p['iv_bytes'] > 0;
        for ($b = 0; $b < $batches; $b++) {
            if ($wl === 'bulk') {
                mcrypt_generic_init($td, $key, $iv);
                Probe::before();
                $t0 = hrtime(true);
                if ($enc) for ($i = 0; $i < $loops; $i++) mcrypt_generic($td, $buf);
                else for ($i = 0; $i < $loops; $i++) mdecrypt_generic($td, $buf);
                $ns[] = hrtime(true) - $t0;
                Probe::after();
                mcrypt_generic_deinit($td);
            } elseif ($wl === 'message') {
                // libmcrypt has no IV-only reset: mcrypt_generic_init also reruns the key schedule.
                Probe::before();
                $t0 = hrtime(true);
                if ($enc && $bumpiv) for ($i = 0; $i < $loops; $i++) { mcrypt_generic_init($td, $key, $iv); mcrypt_generic($td, $buf); $iv = bump($iv); }
                elseif ($enc) for ($i = 0; $i < $loops; $i++) { mcrypt_generic_init($td, $key, $iv); mcrypt_generic($td, $buf); }
                else for ($i = 0; $i < $loops; $i++) { mcrypt_generic_init($td, $key, $iv); mdecrypt_generic($td, $buf); }
                $ns[] = hrtime(true) - $t0;
                Probe::after();
                mcrypt_generic_deinit($td);
            } else {
                // rekey: mcrypt_encrypt / mcrypt_decrypt per message (module open, key setup, IV, data, close).
                Probe::before();
                $t0 = hrtime(true);
                if ($enc && $bumpiv) for ($i = 0; $i < $loops; $i++) { mcrypt_encrypt($alg, $key, $buf, $mode, $iv); $iv = bump($iv); }
                elseif ($enc) for ($i = 0; $i < $loops; $i++) mcrypt_encrypt($alg, $key, $buf, $mode, $iv);
                else for ($i = 0; $i < $loops; $i++) mcrypt_decrypt($alg, $key, $buf, $mode, $iv);
                $ns[] = hrtime(true) - $t0;
                Probe::after();
            }
        }
        return $ns;
    }
}

class SodiumImpl extends Impl {
    public function __construct(array $reg) {
        foreach (SODIUM as $name => [$kind, $fn]) {
            if (!isset($reg[$name])) continue;
            if ($name === 'aes-256-gcm' && !sodium_crypto_aead_aes256gcm_is_available()) {
                $this->notes['aes-256-gcm'] = 'not offered: libsodium needs AES-NI and PCLMUL';
                continue;
            }
            $this->offers[$name] = 'libsodium ' . SODIUM_LIBRARY_VERSION . ' (one-shot call per message; '
                . ($name === 'aes-256-gcm' ? 'AES-NI + PCLMUL' : 'portable C or SIMD chosen at run time') . ')';
            // libsodium says which of its builds runs only for AES-256-GCM: the rest is unknown here
            if ($name === 'aes-256-gcm') $this->features[$name] = ['aes-ni', 'pclmul'];
        }
    }
    public function name(): string { return 'php-sodium'; }
    public function library(): string { return 'ext-sodium on libsodium ' . SODIUM_LIBRARY_VERSION; }
    public function version(): string { return SODIUM_LIBRARY_VERSION; }

    public function crypt(array $p, bool $enc, string $key, string $iv, string $aad, string $in, string $tag,
                          ?array $parts = null) {
        if ($parts !== null) throw new Unsup('libsodium\'s calls are one-shot here: it cannot take a message in pieces');
        [$kind, $fn] = SODIUM[$p['name']];
        if ($kind === 'stream') { $out = $fn($in, $iv, $key); return $enc ? [$out, ''] : $out; }
        if ($enc) {
            $out = ($fn . '_encrypt')($in, $aad, $iv, $key);
            $n = strlen($out) - $p['tag_bytes'];
            return [substr($out, 0, $n), substr($out, $n)];
        }
        $out = ($fn . '_decrypt')($in . $tag, $aad, $iv, $key);
        return $out === false ? null : $out;
    }

    public function hash(array $p, string $in): string {
        return sodium_crypto_generichash($in, '', SODIUM[$p['name']][1]);
    }

    public function bench(array $p, string $op, string $wl, int $size, int $loops, int $batches,
                          string $key, string $iv, string $aad): array {
        [$kind, $fn] = SODIUM[$p['name']];
        $buf = buffer($size);
        $ns = [];
        if ($kind === 'hash') {
            for ($b = 0; $b < $batches; $b++) {
                if ($wl === 'bulk') {
                    $st = sodium_crypto_generichash_init('', $fn);
                    Probe::before();
                    $t0 = hrtime(true);
                    for ($i = 0; $i < $loops; $i++) sodium_crypto_generichash_update($st, $buf);
                    $ns[] = hrtime(true) - $t0;
                    Probe::after();
                    sodium_crypto_generichash_final($st, $fn);
                } else {
                    Probe::before();
                    $t0 = hrtime(true);
                    for ($i = 0; $i < $loops; $i++) sodium_crypto_generichash($buf, '', $fn);
                    $ns[] = hrtime(true) - $t0;
                    Probe::after();
                }
            }
            return $ns;
        }
        if ($op === 'keysetup' || $op === 'keysetup-decrypt')
            throw new Unsup('libsodium takes the raw key on every call: there is no key setup to time');
        $bumpiv = $op === 'encrypt' && $wl !== 'bulk';
        if ($kind === 'stream') {
            if ($op === 'decrypt-forged') throw new Fail('decrypt-forged applies to AEADs only');
            for ($b = 0; $b < $batches; $b++) {
                Probe::before();
                $t0 = hrtime(true);
                if ($bumpiv) for ($i = 0; $i < $loops; $i++) { $fn($buf, $iv, $key); $iv = bump($iv); }
                else for ($i = 0; $i < $loops; $i++) $fn($buf, $iv, $key);
                $ns[] = hrtime(true) - $t0;
                Probe::after();
            }
            return $ns;
        }
        $e = $fn . '_encrypt';
        $d = $fn . '_decrypt';
        if ($op === 'encrypt') {
            for ($b = 0; $b < $batches; $b++) {
                Probe::before();
                $t0 = hrtime(true);
                if ($bumpiv) for ($i = 0; $i < $loops; $i++) { $e($buf, $aad, $iv, $key); $iv = bump($iv); }
                else for ($i = 0; $i < $loops; $i++) $e($buf, $aad, $iv, $key);
                $ns[] = hrtime(true) - $t0;
                Probe::after();
            }
            return $ns;
        }
        $ct = $e($buf, $aad, $iv, $key);
        if ($op === 'decrypt-forged') { $k = strlen($ct) - $p['tag_bytes']; $ct[$k] = chr(ord($ct[$k]) ^ 1); }
        $acc = 0;
        for ($b = 0; $b < $batches; $b++) {
            Probe::before();
            $t0 = hrtime(true);
            for ($i = 0; $i < $loops; $i++) if ($d($ct, $aad, $iv, $key) !== false) $acc++;
            $ns[] = hrtime(true) - $t0;
            Probe::after();
        }
        check_accepted($p, $op, $acc, $loops * $batches);
        return $ns;
    }
}

class HashImpl extends Impl {
    public function __construct(array $reg) {
        $algos = array_flip(hash_algos());
        foreach (PHPHASH as $name => $hn)
            if (isset($reg[$name]) && isset($algos[$hn])) {
                $this->offers[$name] = "ext-hash $hn (PHP's own C code)";
                $this->features[$name] = ['portable'];  // no SHA or vector code in PHP 8.2's ext-hash
            }
    }
    public function name(): string { return 'php-hash'; }
    public function library(): string { return 'ext-hash (bundled with PHP)'; }
    public function version(): string { return PHP_VERSION; }
    public function crypt(array $p, bool $enc, string $key, string $iv, string $aad, string $in, string $tag,
                          ?array $parts = null) {
        throw new Fail("$p[name] is a hash: use op 'hash'");
    }
    public function hash(array $p, string $in): string { return hash(PHPHASH[$p['name']], $in, true); }
    public function bench(array $p, string $op, string $wl, int $size, int $loops, int $batches,
                          string $key, string $iv, string $aad): array {
        $hn = PHPHASH[$p['name']];
        $buf = buffer($size);
        $ns = [];
        for ($b = 0; $b < $batches; $b++) {
            if ($wl === 'bulk') {
                $ctx = hash_init($hn);
                Probe::before();
                $t0 = hrtime(true);
                for ($i = 0; $i < $loops; $i++) hash_update($ctx, $buf);
                $ns[] = hrtime(true) - $t0;
                Probe::after();
                hash_final($ctx, true);
            } else {
                Probe::before();
                $t0 = hrtime(true);
                for ($i = 0; $i < $loops; $i++) hash($hn, $buf, true);
                $ns[] = hrtime(true) - $t0;
                Probe::after();
            }
        }
        return $ns;
    }
}

function check_accepted(array $p, string $op, int $acc, int $total): void {
    $forged = $op === 'decrypt-forged';
    if ($acc !== ($forged ? 0 : $total))
        throw new Fail("$p[name]: $acc of $total " . ($forged ? 'forged messages were accepted' : 'valid messages were accepted'));
}

// ------------------------------------------------------------------ the runner
final class Runner {
    private array $reg = [];
    private array $impls = [];

    public function __construct(string $registryFile) {
        foreach (json_decode(file_get_contents($registryFile), true, 16, JSON_THROW_ON_ERROR) as $p) $this->reg[$p['name']] = $p;
        foreach (['OpenSSLImpl', 'McryptImpl', 'SodiumImpl', 'HashImpl'] as $cls) {
            try { $im = new $cls($this->reg); }
            catch (Throwable $e) { fwrite(STDERR, "$cls: " . $e->getMessage() . "\n"); continue; }
            $this->impls[$im->name()] = $im;
        }
    }

    public function handle(object $req): array {
        $op = str($req, 'op');
        switch ($op) {
            case 'hello': return $this->hello();
            case 'encrypt': case 'decrypt': return $this->cryptRequest($req, $op === 'encrypt');
            case 'hash': return $this->hashOnce($req);
            case 'bench': return $this->bench($req);
            case 'cpu-clock': throw new Unsup('cpu-clock is not available in PHP (no cycle-exact loop)');
            case 'ct-sample': return $this->ctSample($req);
        }
        throw new Fail("unknown op '$op'; accepted: hello, encrypt, decrypt, hash, bench, cpu-clock, ct-sample, quit");
    }

    private function hello(): array {
        $impls = [];
        foreach ($this->impls as $im) {
            $prims = [];
            ksort($im->offers);
            foreach ($im->offers as $n => $prov)
                $prims[] = ['name' => $n, 'provider' => $prov] + (isset($im->features[$n]) ? ['features' => $im->features[$n]] : []);
            $j = ['name' => $im->name(), 'library' => $im->library(), 'version' => $im->version(),
                  'available' => count($prims) > 0, 'primitives' => $prims];
            if (!$prims) $j['reason'] = 'no primitive could be loaded';
            if ($im->notes) $j['notes'] = $im->notes;
            $impls[] = $j;
        }
        return ['status' => 'ok', 'protocol' => 1, 'runner' => 'php', 'language' => 'PHP', 'jit' => false,
                'runtime' => 'PHP ' . PHP_VERSION . ' (' . PHP_SAPI . ', ' . (PHP_ZTS ? 'ZTS' : 'NTS') . ')',
                'clocks' => ['monotonic' => 'hrtime(true)', 'tsc' => null, 'core_cycles' => null],
                'implementations' => $impls];
    }

    private function target(object $req): array {
        $in = str($req, 'impl');
        $pn = str($req, 'primitive');
        if (!isset($this->reg[$pn])) throw new Fail("unknown primitive '$pn' (not in the registry)");
        if (!isset($this->impls[$in])) throw new Fail("unknown implementation '$in'");
        $im = $this->impls[$in];
        if (!isset($im->offers[$pn])) throw new Unsup("$in does not offer $pn");
        return [$im, $this->reg[$pn]];
    }

    private static function checkLengths(array $p, string $key, string $iv, string $aad): void {
        if (strlen($key) !== $p['key_bytes'])
            throw new Fail("$p[name] takes a $p[key_bytes]-byte key, got " . strlen($key));
        if (strlen($iv) !== $p['iv_bytes'])
            throw new Fail("$p[name] takes a $p[iv_bytes]-byte IV/nonce, got " . strlen($iv));
        if ($aad !== '' && $p['kind'] !== 'aead')
            throw new Fail("$p[name] is not an AEAD and takes no associated data");
    }

    private static function checkInput(array $p, int $n): void {
        if ($p['whole_blocks'] && $n % $p['block_bytes'])
            throw new Fail("$p[name] takes whole $p[block_bytes]-byte blocks (no padding), got $n bytes");
    }

    // The optional "fill" and "digest" fields of encrypt/decrypt (docs/protocol.md), handled
    // around crypt(): "fill" {seed, bytes} puts SHA-256(seed || 0) || SHA-256(seed || 1) || ...
    // (8-byte big-endian counters, cut to `bytes`) before "input"; "digest" "sha256" answers
    // "output_sha256" instead of "output".
    private const FILL_MAX = 64 << 20;

    private function cryptRequest(object $req, bool $enc): array {
        $digest = $req->digest ?? null;
        $fill = $req->fill ?? null;
        if ($digest !== null && $digest !== 'sha256')
            throw new Fail("field 'digest' must be \"sha256\", got " . json_encode($digest));
        if ($fill !== null) {
            if (!($fill instanceof stdClass)) throw new Fail('field \'fill\' must be an object {"seed": hex, "bytes": N}');
            $seed = $fill->seed ?? null;
            $n = $fill->bytes ?? null;
            if (!is_string($seed) || strlen($seed) % 2 || ($seed !== '' && !ctype_xdigit($seed)))
                throw new Fail("field 'fill.seed' must be a hex string, got " . json_encode($seed));
            if (!is_int($n) || $n < 0 || $n > self::FILL_MAX)
                throw new Fail("field 'fill.bytes' must be an integer from 0 to " . self::FILL_MAX . ', got ' . json_encode($n));
            $req = clone $req;
            $req->input = bin2hex(self::fillBytes(hex2bin($seed), $n) . unhex($req, 'input', true));
        }
        $r = $this->crypt($req, $enc);
        if ($fill !== null) $r['filled'] = true;
        if ($digest !== null && isset($r['output'])) {  // a rejected forgery has neither
            $r['output_sha256'] = hash('sha256', hex2bin($r['output']));
            unset($r['output']);
        }
        return $r;
    }

    private static function fillBytes(string $seed, int $n): string {
        $out = '';
        for ($i = 0; strlen($out) < $n; $i++) $out .= hash('sha256', $seed . pack('J', $i), true);
        return substr($out, 0, $n);
    }

    private function crypt(object $req, bool $enc): array {
        [$im, $p] = $this->target($req);
        if ($p['kind'] === 'hash') throw new Fail("$p[name] is a hash: use op 'hash'");
        if (($req->inplace ?? null) === true) throw new Unsup("this runner does not offer in-place operation ('inplace')");
        $key = unhex($req, 'key'); $iv = unhex($req, 'iv'); $aad = unhex($req, 'aad');
        $in = unhex($req, 'input', true);
        self::checkLengths($p, $key, $iv, $aad);
        $tag = '';
        $aead = $p['kind'] === 'aead';
        if ($aead && !$enc) {
            if (strlen($in) < $p['tag_bytes'])
                throw new Fail("$p[name] decryption input must end with the $p[tag_bytes]-byte tag");
            $tag = substr($in, -$p['tag_bytes']);
            $in = substr($in, 0, -$p['tag_bytes']);
        }
        self::checkInput($p, strlen($in));
        $parts = self::chunks($req, $p, strlen($in));
        $r = $im->crypt($p, $enc, $key, $iv, $aad, $in, $tag, $parts);
        if ($enc) {
            [$out, $t] = $r;
            if (strlen($out) !== strlen($in) || strlen($t) !== ($aead ? $p['tag_bytes'] : 0))
                throw new Fail("$p[name]: the library returned " . strlen($out) . " bytes for " . strlen($in));
            return self::chunked(['status' => 'ok', 'output' => bin2hex($out . $t)], $parts);
        }
        if ($aead) return self::chunked($r === null ? ['status' => 'ok', 'authentic' => false] : ['status' => 'ok', 'authentic' => true, 'output' => bin2hex($r)], $parts);
        if (strlen($r) !== strlen($in)) throw new Fail("$p[name]: the library returned " . strlen($r) . " bytes for " . strlen($in));
        return self::chunked(['status' => 'ok', 'output' => bin2hex($r)], $parts);
    }

    // ct-sample (docs/protocol.md): single encryptions of a fixed and a random class,
    // interleaved in an order drawn from the seed (mt_srand), each timed alone with hrtime.
    // PHP's cipher calls are one-shot: every call includes key setup (the fixed key's, for
    // vary "plaintext") and the call through the implementation's crypt().
    private function ctSample(object $req): array {
        [$im, $p] = $this->target($req);
        if ($p['kind'] === 'hash') throw new Unsup("$p[name] is a hash: ct-sample times ciphers");
        $vary = str($req, 'vary');
        if ($vary !== 'key' && $vary !== 'plaintext') throw new Fail("vary must be 'key' or 'plaintext'");
        $samples = count_field($req, 'samples', null); $seed = count_field($req, 'seed', null);
        if ($samples < 2 || $samples > 1000000) throw new Fail('samples must be in 2..1000000');
        $key = unhex($req, 'key', true); $iv = unhex($req, 'iv'); $aad = unhex($req, 'aad');
        $msg = unhex($req, 'input', true);
        self::checkLengths($p, $key, $iv, $aad);
        if (strlen($msg) < 1 || strlen($msg) > 65536) throw new Fail('input must be 1 to 65536 bytes');
        self::checkInput($p, strlen($msg));
        mt_srand($seed & 0x7fffffff);
        $byKey = $vary === 'key';
        $fixed = $byKey ? $key : $msg;
        $classes = []; $inputs = [];
        for ($i = 0; $i < $samples; $i++) $classes[] = mt_rand(0, 1);
        foreach ($classes as $c) {
            // every call its own string, the fixed class a copy (a concatenation allocates;
            // an assignment shares): the classes differ in their values, never in where they lie
            if (!$c) { $inputs[] = substr($fixed, 0, 1) . substr($fixed, 1); continue; }
            $x = '';
            for ($j = 0, $n = strlen($fixed); $j < $n; $j++) $x .= chr(mt_rand(0, 255));
            $inputs[] = $x;
        }
        $call = $byKey ? fn(string $x) => $im->crypt($p, true, $x, $iv, $aad, $msg, '')
                       : fn(string $x) => $im->crypt($p, true, $key, $iv, $aad, $x, '');
        foreach (array_slice($inputs, 0, 1000) as $x) $call($x);  // warm-up, untimed
        $times = [];
        foreach ($inputs as $x) {
            $t0 = hrtime(true);
            $call($x);
            $times[] = hrtime(true) - $t0;
        }
        return ['status' => 'ok', 'vary' => $vary, 'samples' => $samples, 'timer' => 'hrtime ns',
                'classes' => $classes, 'times' => $times];
    }

    private static function chunked(array $r, ?array $parts): array {
        if ($parts !== null) $r['chunked'] = true;
        return $r;
    }

    // The optional "chunks" field: lengths of consecutive library calls, then the rest.
    private static function chunks(object $req, array $p, int $n): ?array {
        if (!property_exists($req, 'chunks') || $req->chunks === null) return null;
        if (!is_array($req->chunks) || !array_is_list($req->chunks)) throw new Fail("field 'chunks' must be a list of byte counts");
        $parts = [];
        $sum = 0;
        foreach ($req->chunks as $len) {
            if (!is_int($len) || $len <= 0) throw new Fail("field 'chunks' must hold positive byte counts");
            if ($p['whole_blocks'] && $len % $p['block_bytes'])
                throw new Fail("$p[name] takes whole $p[block_bytes]-byte blocks: chunk of $len bytes");
            if ($len > $n - $sum) throw new Fail("chunks add up to more than the $n-byte input");
            $sum += $len;
            $parts[] = $len;
        }
        if ($sum < $n) $parts[] = $n - $sum;
        return $parts;
    }

    private function hashOnce(object $req): array {
        [$im, $p] = $this->target($req);
        if ($p['kind'] !== 'hash') throw new Fail("$p[name] is not a hash: use encrypt/decrypt");
        return ['status' => 'ok', 'output' => bin2hex($im->hash($p, unhex($req, 'input', true)))];
    }

    private function bench(object $req): array {
        $probe = ($req->probe ?? null) === null ? 0 : count_field($req, 'probe', 0);
        if ($probe > 100000) throw new Fail('probe must be in 0..100000');
        Probe::start($probe);
        try {
            $r = $this->benchProbed($req);
            return $r + Probe::fields(count($r['ns']));
        } finally {
            Probe::start(0);
        }
    }

    private function benchProbed(object $req): array {
        [$im, $p] = $this->target($req);
        $op = str($req, 'operation');
        $wl = str($req, 'workload', 'bulk');
        $ks = $op === 'keysetup' || $op === 'keysetup-decrypt';
        $size = count_field($req, 'size', $ks ? 0 : null);
        $loops = count_field($req, 'loops', null);
        $batches = count_field($req, 'batches', 1);
        if ($loops === 0 || $batches === 0) throw new Fail('loops and batches must be at least 1');
        if ($batches > 100000) throw new Fail('at most 100000 batches per request');
        if ($size > (1 << 30)) throw new Fail('size is limited to 1 GiB');
        // docs/protocol.md "bench": caps far above any calibrated batch, so an absurd count is
        // refused instead of running until the orchestrator's timeout
        if ($loops > 1000000000) throw new Fail('loops must be at most 1000000000');
        if ($loops * max($size, 1) > (1 << 36)) throw new Fail('loops x size must be at most 2^36 bytes per batch');
        if (!in_array($wl, ['bulk', 'message', 'rekey'], true)) throw new Fail("unknown workload '$wl'; accepted: bulk, message, rekey");
        if (!in_array($op, ['encrypt', 'decrypt', 'decrypt-forged', 'keysetup', 'keysetup-decrypt', 'hash'], true))
            throw new Fail("unknown operation '$op'; accepted: encrypt, decrypt, decrypt-forged, keysetup, keysetup-decrypt, hash");
        if ($p['kind'] === 'hash') {
            if ($op !== 'hash') throw new Fail("$p[name] is a hash: operation must be 'hash'");
            if ($wl === 'rekey') throw new Fail('hashes have no key: use workload bulk or message');
            return self::result($im->bench($p, $op, $wl, $size, $loops, $batches, '', '', ''));
        }
        if ($op === 'hash') throw new Fail("$p[name] is not a hash: operation 'hash' applies to hashes only");
        $key = unhex($req, 'key'); $iv = unhex($req, 'iv'); $aad = unhex($req, 'aad');
        self::checkLengths($p, $key, $iv, $aad);
        if (!$ks) self::checkInput($p, $size);
        if ($op === 'decrypt-forged' && $p['kind'] !== 'aead') throw new Fail('decrypt-forged applies to AEADs only');
        return self::result($im->bench($p, $op, $wl, $size, $loops, $batches, $key, $iv, $aad));
    }

    private static function result(array $ns): array {
        return ['status' => 'ok', 'ns' => $ns, 'tsc' => null, 'core_cycles' => null];
    }
}

// ------------------------------------------------------------------ main loop
$registry = $argv[1] ?? (__DIR__ . '/../../build/runners/php/registry.json');
if (!is_readable($registry)) { fwrite(STDERR, "runner.php: $registry is missing: run runners/php/build.sh\n"); exit(2); }
Probe::load(dirname($registry) . '/libcb_probe.so');
$runner = new Runner($registry);
$jflags = JSON_UNESCAPED_SLASHES | JSON_INVALID_UTF8_SUBSTITUTE | JSON_PRESERVE_ZERO_FRACTION | JSON_PARTIAL_OUTPUT_ON_ERROR;
while (($line = fgets(STDIN)) !== false) {
    $id = null;
    try {
        // every line is answered, a blank one too (docs/protocol.md)
        if (trim($line) === '') throw new Fail('blank line: a request must be a JSON object');
        try {
            $req = json_decode($line, false, 512, JSON_THROW_ON_ERROR);
        } catch (JsonException $e) {
            throw new Fail('malformed request: not JSON (' . $e->getMessage() . ')');
        }
        if (!($req instanceof stdClass)) throw new Fail('a request must be a JSON object');
        // 1e999 decodes to INF, which JSON cannot carry back: refused, so the id echoed is the one sent
        if (property_exists($req, 'id') && is_float($req->id) && !is_finite($req->id))
            throw new Fail('malformed request: id is a number out of range');
        if (property_exists($req, 'id')) $id = $req->id;
        if (($req->op ?? null) === 'quit') break;
        $resp = $runner->handle($req);
    } catch (Unsup $e) {
        $resp = ['status' => 'unsupported', 'message' => $e->getMessage()];
    } catch (Throwable $e) {
        $resp = ['status' => 'error', 'message' => $e->getMessage()];
    }
    $resp['id'] = $id;
    $s = json_encode($resp, $jflags);
    if ($s === false) $s = json_encode(['status' => 'error', 'message' => 'response could not be encoded', 'id' => null]);
    fwrite(STDOUT, $s . "\n");
}
exit(0);
