//! etcd 3.4's JSON gateway (grpc-gateway over the v3 API): what an etcd-backed lease costs.

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use serde::Deserialize;

use crate::grantor::{parse, Names};
use crate::http::{bad_reply, Conn, Result};
use crate::run::Client;

/// The gateway renders int64 fields as JSON strings; accept numbers too.
#[derive(Deserialize)]
#[serde(untagged)]
enum Int {
    Text(String),
    Number(i64),
}

impl Int {
    fn get(&self) -> Option<i64> {
        match self {
            Int::Text(s) => s.parse().ok(),
            Int::Number(n) => Some(*n),
        }
    }
}

#[derive(Deserialize)]
struct LeaseReply {
    #[serde(rename = "ID")]
    id: Option<Int>,
    #[serde(rename = "TTL")]
    ttl: Option<Int>,
}

#[derive(Deserialize)]
struct KeepaliveMessage {
    result: Option<LeaseReply>,
}

#[derive(Deserialize)]
struct TxnReply {
    // Absent when false: the gateway leaves out fields at their default.
    #[serde(default)]
    succeeded: bool,
}

fn live(ttl: &Option<Int>) -> bool {
    ttl.as_ref().and_then(Int::get).is_some_and(|t| t > 0)
}

/// Grants a 60 s lease and returns its id.
async fn grant(conn: &mut Conn) -> Result<i64> {
    const PATH: &str = "/v3/lease/grant";
    let reply = conn.post(PATH, br#"{"TTL":60}"#).await?;
    let lease: LeaseReply = parse(PATH, reply)?;
    match lease.id.as_ref().and_then(Int::get) {
        Some(id) if live(&lease.ttl) => Ok(id),
        _ => Err(bad_reply(PATH, "no lease granted", reply)),
    }
}

/// `etcd-keepalive`: one lease per connection, kept alive back to back.
pub struct Keepaliver {
    conn: Conn,
    body: Vec<u8>,
}

impl Keepaliver {
    pub async fn set_up(mut conn: Conn) -> Result<Keepaliver> {
        let id = grant(&mut conn).await?;
        Ok(Keepaliver {
            conn,
            body: format!(r#"{{"ID":"{id}"}}"#).into_bytes(),
        })
    }
}

impl Client for Keepaliver {
    async fn step(&mut self) -> Result<u64> {
        const PATH: &str = "/v3/lease/keepalive";
        let reply = self.conn.post(PATH, &self.body).await?;
        // A stream of JSON lines, one per keepalive response; we sent one request.
        let first = reply.split(|&b| b == b'\n').next().unwrap_or_default();
        let message: KeepaliveMessage = parse(PATH, first)?;
        if !message.result.is_some_and(|r| live(&r.ttl)) {
            return Err(bad_reply(PATH, "lease not kept alive", reply));
        }
        Ok(1)
    }
}

/// `etcd-acquire`: a lease grant plus a put-if-absent under it, as one acquire.
pub struct Acquirer {
    pub conn: Conn,
    pub names: Names,
    pub i: usize,
    pub seq: u64,
}

impl Client for Acquirer {
    async fn step(&mut self) -> Result<u64> {
        const PATH: &str = "/v3/kv/txn";
        let lease = grant(&mut self.conn).await?;
        self.seq += 1;
        let key = STANDARD.encode(format!(
            "{}/acquire/{}/{}",
            self.names.prefix, self.i, self.seq
        ));
        let holder = STANDARD.encode(format!("{}/holder/{}", self.names.prefix, self.i));
        let body = format!(
            r#"{{"compare":[{{"key":"{key}","target":"CREATE","create_revision":"0"}}],"success":[{{"request_put":{{"key":"{key}","value":"{holder}","lease":"{lease}"}}}}],"failure":[]}}"#
        );
        let reply = self.conn.post(PATH, body.as_bytes()).await?;
        let txn: TxnReply = parse(PATH, reply)?;
        if !txn.succeeded {
            return Err(bad_reply(PATH, "the key was not put", reply));
        }
        Ok(1)
    }
}
