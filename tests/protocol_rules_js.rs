//! `pkg/protocol-rules.js` is rendered from the Rust protocol rules, so the package's JavaScript
//! adapters check arguments and read statuses by the same rules without loading the WebAssembly
//! core. This test fails when the file and the rules disagree; with `TENURE_WRITE_RULES=1` it
//! rewrites the file instead.

use tenure::core::{FailureKind, REMEMBERED_LEASES};
use tenure::protocol::{
    max_batch_reply_bytes, refuses_unknown_field, ErrorCode, RenewRefusal,
    BATCH_REPLY_ENVELOPE_BYTES, FIRST_TOKEN, MAX_BATCH_RESULT_BYTES, MAX_ERROR_BYTES,
    MAX_FENCED_PAYLOAD_BYTES, MAX_HOLDER_LEN, MAX_PAYLOAD_BYTES, MAX_REPLY_BYTES,
    MAX_REQUEST_DURATION_MS, MAX_REQUEST_ID_LEN, MAX_RESOURCE_LEN, MAX_RESULT_BYTES, MAX_TOKEN,
    MIN_REQUEST_DURATION_MS,
};

const PATH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/pkg/protocol-rules.js");

/// Every status from 0 to 999 as runs of one failure kind: `[first, last, kind]`.
fn status_runs() -> Vec<(u16, u16, &'static str)> {
    let mut runs: Vec<(u16, u16, &'static str)> = Vec::new();
    for status in 0..=999u16 {
        let kind = FailureKind::for_status(status).as_str();
        match runs.last_mut() {
            Some(run) if run.2 == kind => run.1 = status,
            _ => runs.push((status, status, kind)),
        }
    }
    runs
}

fn render() -> String {
    let mut out = String::new();
    out.push_str(
        "// The grantor protocol's rules, rendered from the Rust protocol module and core (src/protocol.rs,\n\
         // FailureKind::for_status, REMEMBERED_LEASES) by tests/protocol_rules_js.rs, which fails when\n\
         // they disagree.\n\
         // Do not edit: run `TENURE_WRITE_RULES=1 cargo test -p tenure --test protocol_rules_js`.\n\n",
    );
    let constants = [
        (
            "FIRST_TOKEN",
            "The first token a grantor issues.",
            FIRST_TOKEN,
        ),
        ("MAX_TOKEN", "The largest token: 2^53 - 1.", MAX_TOKEN),
        (
            "MAX_RESOURCE_LENGTH",
            "The longest resource name.",
            MAX_RESOURCE_LEN as u64,
        ),
        (
            "MAX_HOLDER_LENGTH",
            "The longest holder identity.",
            MAX_HOLDER_LEN as u64,
        ),
        (
            "MAX_REQUEST_ID_LENGTH",
            "The longest request id.",
            MAX_REQUEST_ID_LEN as u64,
        ),
        (
            "MIN_DURATION_MS",
            "The shortest duration a holder may ask for.",
            MIN_REQUEST_DURATION_MS,
        ),
        (
            "MAX_DURATION_MS",
            "The longest duration a holder may ask for: 2^31 - 1 ms.",
            MAX_REQUEST_DURATION_MS,
        ),
        (
            "REMEMBERED_LEASES",
            "How many leases a client remembers something about (a secret, what batching learned).",
            REMEMBERED_LEASES as u64,
        ),
        (
            "MAX_REPLY_BYTES",
            "The most bytes a client reads of a reply other than a batch's.",
            MAX_REPLY_BYTES as u64,
        ),
        (
            "MAX_PAYLOAD_BYTES",
            "The most bytes a queue item's payload takes as the grantor stores it.",
            MAX_PAYLOAD_BYTES as u64,
        ),
        (
            "MAX_RESULT_BYTES",
            "The most bytes a completion's result takes as the grantor stores it.",
            MAX_RESULT_BYTES as u64,
        ),
        (
            "MAX_ERROR_BYTES",
            "The most bytes a failure's error takes as the grantor stores it.",
            MAX_ERROR_BYTES as u64,
        ),
        (
            "MAX_FENCED_PAYLOAD_BYTES",
            "The most bytes a fenced write's payload takes as the grantor stores it.",
            MAX_FENCED_PAYLOAD_BYTES as u64,
        ),
    ];
    for (name, doc, value) in constants {
        out.push_str(&format!("/** {doc} */\nexport const {name} = {value};\n"));
    }
    // `max_batch_reply_bytes` is this sum: an envelope and room for each result.
    for renewals in [0, 1, 7, 10_000] {
        assert_eq!(
            max_batch_reply_bytes(renewals),
            BATCH_REPLY_ENVELOPE_BYTES + renewals * MAX_BATCH_RESULT_BYTES
        );
    }
    out.push_str(&format!(
        "/** The most bytes a client reads of the reply to a batch of `renewals` renewals. */\n\
         export function maxBatchReplyBytes(renewals) {{\n  \
         return {BATCH_REPLY_ENVELOPE_BYTES} + renewals * {MAX_BATCH_RESULT_BYTES};\n}}\n"
    ));
    // `is_valid_name`'s character set: printable ASCII, space included.
    assert!(
        tenure::protocol::is_valid_name(" ~", 2) && !tenure::protocol::is_valid_name("\x1f", 1)
    );
    assert!(!tenure::protocol::is_valid_name("\x7f", 1));
    out.push_str("/** The characters of names, holders and request ids: printable ASCII. */\n");
    out.push_str("export const NAME_PATTERN = /^[\\x20-\\x7e]+$/;\n");
    out.push_str(
        "/** The failure kind of each HTTP status, as runs `[first, last, kind]` covering 0 to 999. */\n\
         export const STATUS_KINDS = [\n",
    );
    for (first, last, kind) in status_runs() {
        out.push_str(&format!("  [{first}, {last}, \"{kind}\"],\n"));
    }
    out.push_str("];\n");
    out.push_str(
        "/** The protocol error codes whose failure kind is not `bad_request` (every other code's is). */\n\
         export const CODE_KINDS = {\n",
    );
    for code in ErrorCode::ALL {
        let kind = FailureKind::for_error_code(code.as_str());
        if kind != FailureKind::BadRequest {
            out.push_str(&format!("  {}: \"{}\",\n", code.as_str(), kind.as_str()));
        }
    }
    out.push_str("};\n");
    out.push_str(
        "/** The protocol's error codes, by their names in upper case. */\n\
         export const ERROR_CODE = Object.freeze({\n",
    );
    for code in ErrorCode::ALL {
        out.push_str(&constant_entry(code.as_str()));
    }
    out.push_str("});\n");
    // The one refusal that says a request field is unknown and nothing was done.
    let refusals: Vec<(u16, &str)> = (0..=999u16)
        .flat_map(|status| ErrorCode::ALL.map(|code| (status, code.as_str())))
        .filter(|&(status, code)| refuses_unknown_field(status, code))
        .collect();
    let [(status, code)] = refusals[..] else {
        panic!("one refusal says a field is unknown, not {refusals:?}");
    };
    out.push_str(&format!(
        "/** The refusal of a request field the grantor does not know (it did nothing else). */\n\
         export const UNKNOWN_FIELD_REFUSAL = Object.freeze({{ status: {status}, code: \"{code}\" }});\n"
    ));
    out.push_str(
        "/** Why a grantor refuses a renewal, by the reasons' names in upper case. */\n\
         export const RENEW_REFUSAL = Object.freeze({\n",
    );
    for reason in renew_refusals() {
        assert_eq!(RenewRefusal::parse(reason.as_str()), Some(reason));
        out.push_str(&constant_entry(reason.as_str()));
    }
    out.push_str("});\n");
    out
}

/// Every renewal refusal.
fn renew_refusals() -> [RenewRefusal; 4] {
    use RenewRefusal::{Expired, NotHolder, Revoked, Unknown};
    let all = [Expired, Revoked, NotHolder, Unknown];
    // A reason added to RenewRefusal must be listed above: this match stops compiling otherwise.
    for reason in all {
        match reason {
            Expired | Revoked | NotHolder | Unknown => {}
        }
    }
    all
}

/// `  NAME: "name",` for a wire name in snake case.
fn constant_entry(wire: &str) -> String {
    format!("  {}: \"{wire}\",\n", wire.to_ascii_uppercase())
}

#[test]
fn the_package_states_the_protocol_rules_as_rust_does() {
    let rendered = render();
    if std::env::var_os("TENURE_WRITE_RULES").is_some() {
        std::fs::write(PATH, &rendered).unwrap();
    }
    let on_disk = std::fs::read_to_string(PATH).unwrap_or_default();
    assert!(
        on_disk == rendered,
        "pkg/protocol-rules.js is out of date: run TENURE_WRITE_RULES=1 cargo test -p tenure --test protocol_rules_js"
    );
}
