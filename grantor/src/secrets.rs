//! The server key of the reference grantor's database; the secrets derived from it are
//! [`tenure::secrets`], shared with every other grantor.

pub use tenure::secrets::{LeaseProof, Secrets, SERVER_KEY_LEN};

/// A fresh server key from the operating system's CSPRNG.
pub fn new_server_key() -> Result<[u8; SERVER_KEY_LEN], String> {
    let mut key = [0u8; SERVER_KEY_LEN];
    getrandom::fill(&mut key).map_err(|e| format!("no randomness for the server key: {e}"))?;
    Ok(key)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn server_keys_are_random() {
        assert_ne!(new_server_key().unwrap(), new_server_key().unwrap());
    }
}
