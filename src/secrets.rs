//! Lease and claim secrets: what binds a grant (or a work claim) to whoever received it.
//!
//! A grant's fencing token is public (`/v1/status` shows it) and holder ids are just names, so
//! neither proves who is asking. Each grant therefore comes with a secret, sent only in the
//! grant's reply, that renewals, releases, fenced writes and same-holder re-grants of that grant
//! must present; claims likewise.
//!
//! The secret is not stored anywhere. It is derived: `HMAC-SHA256(server key, what it binds)`,
//! where the server key is 256 random bits generated once and kept in the database, and what it
//! binds is the resource and token (or the item and claim token). A token is handed out once per
//! resource, ever, so the pair names exactly one grant. Deriving it means:
//!
//! - a replayed grant (same holder and `requestId`) returns the same token, hence the same secret;
//! - a restart, or another grantor process on the same PostgreSQL database, derives the same
//!   secret from the same key;
//! - checking a presented secret needs no lookup, and the database holds nothing a reader of it
//!   could present (anyone who can read the server key could also rewrite the leases directly).
//!
//! Every grantor derives its secrets here: the reference grantor on both backends, and the
//! grantors on a key-value store ([`crate::kv_grantor`]) whose binding generates the key.

use std::fmt;
use std::sync::Arc;

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

/// The length of the server key, in bytes.
pub const SERVER_KEY_LEN: usize = 32;

/// Domain separation: a lease secret can never be presented as a claim secret or vice versa.
const LEASE_DOMAIN: &[u8] = b"tenure lease secret v1\0";
const CLAIM_DOMAIN: &[u8] = b"tenure claim secret v1\0";

/// Derives and checks lease and claim secrets with one server key. Cheap to clone.
#[derive(Clone)]
pub struct Secrets {
    key: Arc<[u8; SERVER_KEY_LEN]>,
}

impl fmt::Debug for Secrets {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secrets(..)")
    }
}

impl Secrets {
    /// Secrets derived from `key`.
    pub fn new(key: [u8; SERVER_KEY_LEN]) -> Secrets {
        Secrets { key: Arc::new(key) }
    }

    fn mac(&self, domain: &[u8], parts: &[&[u8]]) -> Hmac<Sha256> {
        let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(&self.key[..])
            .expect("HMAC accepts keys of any length");
        mac.update(domain);
        for part in parts {
            // Length-prefixed, so ("ab", "c") and ("a", "bc") never collide.
            mac.update(&(part.len() as u64).to_be_bytes());
            mac.update(part);
        }
        mac
    }

    /// The secret of the grant of `resource` with `token`: 256 bits, base64url without padding.
    pub fn lease(&self, resource: &str, token: u64) -> String {
        let tag = self
            .mac(LEASE_DOMAIN, &[resource.as_bytes(), &token.to_be_bytes()])
            .finalize()
            .into_bytes();
        URL_SAFE_NO_PAD.encode(tag)
    }

    /// The secret of the claim of item `item_id` with claim token `token`.
    pub fn claim(&self, item_id: u64, token: u64) -> String {
        let tag = self
            .mac(
                CLAIM_DOMAIN,
                &[&item_id.to_be_bytes(), &token.to_be_bytes()],
            )
            .finalize()
            .into_bytes();
        URL_SAFE_NO_PAD.encode(tag)
    }

    /// Whether `presented` is the secret of the grant of `resource` with `token`; compared in
    /// constant time.
    fn proves_lease(&self, resource: &str, token: u64, presented: &str) -> bool {
        let Ok(tag) = URL_SAFE_NO_PAD.decode(presented) else {
            return false;
        };
        self.mac(LEASE_DOMAIN, &[resource.as_bytes(), &token.to_be_bytes()])
            .verify_slice(&tag)
            .is_ok()
    }

    fn proves_claim(&self, item_id: u64, token: u64, presented: &str) -> bool {
        let Ok(tag) = URL_SAFE_NO_PAD.decode(presented) else {
            return false;
        };
        self.mac(
            CLAIM_DOMAIN,
            &[&item_id.to_be_bytes(), &token.to_be_bytes()],
        )
        .verify_slice(&tag)
        .is_ok()
    }

    /// What a request about `resource` presented as a lease secret.
    pub fn lease_proof(&self, resource: &str, presented: Option<String>) -> LeaseProof {
        LeaseProof {
            secrets: self.clone(),
            resource: resource.to_owned(),
            presented,
        }
    }

    /// What a request about item `item_id` presented as a claim secret.
    pub fn claim_proof(&self, item_id: u64, presented: Option<String>) -> ClaimProof {
        ClaimProof {
            secrets: self.clone(),
            item_id,
            presented,
        }
    }
}

/// The lease secret a request presented, checked against whichever grant the store finds it
/// would act on. The stores ask only when the request would change something (or report a
/// success): a request refused anyway gets its ordinary answer, secret or not.
#[derive(Clone, Debug)]
pub struct LeaseProof {
    secrets: Secrets,
    resource: String,
    presented: Option<String>,
}

impl LeaseProof {
    /// Whether the request presented the secret of this resource's grant with `token`.
    pub fn proves(&self, token: u64) -> bool {
        self.presented
            .as_deref()
            .is_some_and(|p| self.secrets.proves_lease(&self.resource, token, p))
    }
}

/// The claim secret a request presented; see [`LeaseProof`].
#[derive(Clone, Debug)]
pub struct ClaimProof {
    secrets: Secrets,
    item_id: u64,
    presented: Option<String>,
}

impl ClaimProof {
    /// Whether the request presented the secret of this item's claim with `token`.
    pub fn proves(&self, token: u64) -> bool {
        self.presented
            .as_deref()
            .is_some_and(|p| self.secrets.proves_claim(self.item_id, token, p))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_bind_exactly_one_grant_or_claim() {
        let secrets = Secrets::new([7; SERVER_KEY_LEN]);
        let secret = secrets.lease("jobs/a", 4);
        assert_eq!(secret.len(), 43, "256 bits in base64url");
        assert_eq!(secret, secrets.lease("jobs/a", 4), "deterministic");
        let proof = secrets.lease_proof("jobs/a", Some(secret.clone()));
        assert!(proof.proves(4));
        assert!(!proof.proves(5), "another token of the same resource");
        assert!(!secrets
            .lease_proof("jobs/b", Some(secret.clone()))
            .proves(4));
        assert!(!secrets.lease_proof("jobs/a", None).proves(4));
        assert!(!secrets
            .lease_proof("jobs/a", Some(format!("{secret}=")))
            .proves(4));
        // The same numbers as a claim do not prove a claim.
        assert!(!secrets.claim_proof(4, Some(secret)).proves(4));
        let claim = secrets.claim(4, 1);
        assert!(secrets.claim_proof(4, Some(claim.clone())).proves(1));
        assert!(!secrets.claim_proof(5, Some(claim)).proves(1));
    }

    #[test]
    fn another_key_derives_other_secrets() {
        let a = Secrets::new([1; SERVER_KEY_LEN]);
        let b = Secrets::new([2; SERVER_KEY_LEN]);
        assert_ne!(a.lease("r", 1), b.lease("r", 1));
        assert!(!b.lease_proof("r", Some(a.lease("r", 1))).proves(1));
    }

    #[test]
    fn resource_and_token_cannot_be_shifted_into_each_other() {
        let s = Secrets::new([3; SERVER_KEY_LEN]);
        assert_ne!(s.lease("a", 0x0102), s.lease("a\u{1}", 0x02));
    }
}
