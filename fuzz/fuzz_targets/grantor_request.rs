//! libFuzzer entry point for [`tenure_fuzz::grantor_request`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    tenure_fuzz::grantor_request(data);
});
