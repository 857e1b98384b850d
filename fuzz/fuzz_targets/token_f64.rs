//! libFuzzer entry point for [`tenure_fuzz::token_f64`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    tenure_fuzz::token_f64(data);
});
