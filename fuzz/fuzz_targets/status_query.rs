//! libFuzzer entry point for [`tenure_fuzz::status_query`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    tenure_fuzz::status_query(data);
});
