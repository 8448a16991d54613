// Compiles the ffi round's callee into the module, as the other binding
// modules do (runtimes/aotbuild.py): csrc/ffi.c, and csrc/common.c for
// the error helpers it calls, at -O2. The checkout's csrc/ is four
// folders up from this crate.
use std::path::PathBuf;

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let csrc = manifest.join("../../../../csrc");
    let sources = [csrc.join("ffi.c"), csrc.join("common.c")];
    for path in sources
        .iter()
        .chain([csrc.join("roundbench.h"), csrc.join("internal.h")].iter())
    {
        println!("cargo:rerun-if-changed={}", path.display());
    }
    cc::Build::new()
        .files(&sources)
        .include(&csrc)
        .opt_level(2)
        .warnings(false)
        .compile("rbffi");
}
