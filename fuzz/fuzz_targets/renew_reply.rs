//! libFuzzer entry point for [`tenure_fuzz::renew_reply`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    tenure_fuzz::renew_reply(data);
});
