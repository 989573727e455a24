// Embeds the locked crate versions (what is compiled in is what runs) for `hello`.
use std::{env, fs, path::Path};

fn main() {
    let lock = fs::read_to_string("Cargo.lock").unwrap_or_default();
    let mut out = String::from("pub const CRATE_VERSIONS: &[(&str, &str)] = &[\n");
    let mut name = String::new();
    for line in lock.lines() {
        if let Some(n) = line.strip_prefix("name = ") {
            name = n.trim_matches('"').to_string();
        } else if let Some(v) = line.strip_prefix("version = ") {
            out += &format!("    ({:?}, {:?}),\n", name, v.trim_matches('"'));
        }
    }
    out += "];\n";
    let dest = Path::new(&env::var("OUT_DIR").unwrap()).join("versions.rs");
    fs::write(dest, out).unwrap();
    let rustc = env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let ver = std::process::Command::new(rustc).arg("--version").output().ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().trim_start_matches("rustc ").to_string())
        .unwrap_or_else(|| "unknown".into());
    println!("cargo:rustc-env=CB_RUSTC_VERSION={ver}");
    println!("cargo:rerun-if-changed=Cargo.lock");
    println!("cargo:rerun-if-changed=build.rs");
}
