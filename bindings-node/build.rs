//! Sets the linker flags a Node addon needs, and rebuilds when the folder
//! that napi-derive writes the typings of the native module to changes.
fn main() {
    println!("cargo:rerun-if-env-changed=NAPI_TYPE_DEF_TMP_FOLDER");
    napi_build::setup();
}
