use super::*;
use crate::protocol::{RenewRefusal, Token};
use crate::secrets::SERVER_KEY_LEN;

const T0: u64 = 1_700_000_000_000;

fn grantor(skew_ms: u64) -> KvGrantor {
    KvGrantor::new(
        Secrets::new([9; SERVER_KEY_LEN]),
        DurationLimits::new(100, 60_000).unwrap(),
        skew_ms,
    )
}

fn grant_req(holder: &str, id: &str, duration_ms: u64, secret: Option<&str>) -> GrantRequest {
    GrantRequest {
        resource: "jobs".into(),
        holder: holder.into(),
        duration_ms,
        request_id: id.into(),
        lease_secret: secret.map(str::to_owned),
    }
}

fn renew_req(holder: &str, token: u64, id: &str, secret: Option<&str>) -> RenewRequest {
    RenewRequest {
        resource: "jobs".into(),
        holder: holder.into(),
        token: Token::new(token).unwrap(),
        duration_ms: 1_000,
        request_id: id.into(),
        lease_secret: secret.map(str::to_owned),
    }
}

fn release_req(holder: &str, token: u64, secret: &str, hand_to: Option<&str>) -> ReleaseRequest {
    ReleaseRequest {
        resource: "jobs".into(),
        holder: holder.into(),
        token: Token::new(token).unwrap(),
        lease_secret: Some(secret.into()),
        hand_to: hand_to.map(str::to_owned),
    }
}

/// A store of one lease record, as a binding keeps it: every write replaces the record.
#[derive(Default)]
struct Store {
    lease: Option<LeaseRecord>,
}

impl Store {
    fn grant(&mut self, g: &KvGrantor, req: &GrantRequest, now: u64) -> GrantReplyWithSecret {
        let decided = g.grant(req, self.lease.as_ref(), now).unwrap();
        if decided.write.is_some() {
            self.lease = decided.write;
        }
        decided.reply
    }

    fn renew(
        &mut self,
        g: &KvGrantor,
        req: &RenewRequest,
        now: u64,
    ) -> Result<RenewReply, Refusal> {
        let decided = g.renew(req, self.lease.as_ref(), now)?;
        if decided.write.is_some() {
            self.lease = decided.write;
        }
        Ok(decided.reply)
    }

    fn release(&mut self, g: &KvGrantor, req: &ReleaseRequest, now: u64) -> bool {
        let decided = g.release(req, self.lease.as_ref(), now).unwrap();
        if decided.write.is_some() {
            self.lease = decided.write;
        }
        decided.reply.released
    }
}

#[test]
fn a_grant_is_exclusive_until_it_runs_out_and_tokens_only_grow() {
    let g = grantor(0);
    let mut store = Store::default();
    let a = store.grant(&g, &grant_req("a", "1", 1_000, None), T0);
    assert!(a.reply.granted);
    assert_eq!(a.reply.token, Some(Token::new(1).unwrap()));
    assert_eq!(a.lease_secret.as_deref().map(str::len), Some(43));
    let denied = store.grant(&g, &grant_req("b", "1", 1_000, None), T0 + 1_000);
    assert!(!denied.reply.granted, "live up to and including its expiry");
    assert_eq!(denied.reply.holder.as_deref(), Some("a"));
    assert_eq!(denied.reply.expires_in_ms, Some(1));
    assert_eq!(denied.lease_secret, None);
    let b = store.grant(&g, &grant_req("b", "2", 1_000, None), T0 + 1_001);
    assert_eq!(b.reply.token, Some(Token::new(2).unwrap()));
    assert_ne!(b.lease_secret, a.lease_secret);
}

#[test]
fn durations_are_clamped_to_the_limits() {
    let g = grantor(0);
    let mut store = Store::default();
    let short = store.grant(&g, &grant_req("a", "1", 5, None), T0);
    assert_eq!(short.reply.duration_ms, Some(100));
    assert_eq!(store.lease.as_ref().unwrap().expires_at_ms, T0 + 100);
}

#[test]
fn a_regrant_by_the_same_holder_needs_its_secret() {
    let g = grantor(0);
    let mut store = Store::default();
    let first = store.grant(&g, &grant_req("a", "1", 1_000, None), T0);
    let unproven = store.grant(&g, &grant_req("a", "2", 1_000, None), T0 + 10);
    assert!(!unproven.reply.granted);
    let secret = first.lease_secret.unwrap();
    let proven = store.grant(&g, &grant_req("a", "3", 1_000, Some(&secret)), T0 + 10);
    assert_eq!(proven.reply.token, Some(Token::new(2).unwrap()));
}

#[test]
fn a_retried_grant_is_answered_as_its_first_attempt_and_a_reused_id_is_refused() {
    let g = grantor(0);
    let mut store = Store::default();
    let req = grant_req("a", "1", 1_000, None);
    let first = store.grant(&g, &req, T0);
    let retry = g.grant(&req, store.lease.as_ref(), T0 + 400).unwrap();
    assert_eq!(retry.write, None, "a retry acts no more");
    assert_eq!(retry.reply.reply.token, first.reply.token);
    assert_eq!(retry.reply.lease_secret, first.lease_secret);
    assert_eq!(
        retry.reply.reply.duration_ms,
        Some(600),
        "cut to what is left"
    );
    let other = grant_req("a", "1", 2_000, None);
    assert_eq!(
        g.grant(&other, store.lease.as_ref(), T0 + 400)
            .unwrap_err()
            .code,
        ErrorCode::RequestIdReused
    );
    let as_renewal = renew_req("a", 1, "1", first.lease_secret.as_deref());
    assert_eq!(
        g.renew(&as_renewal, store.lease.as_ref(), T0 + 400)
            .unwrap_err()
            .code,
        ErrorCode::RequestIdReused
    );
    // Once the grant ran out its retry is a denial, never a second grant.
    let late = g.grant(&req, store.lease.as_ref(), T0 + 2_000).unwrap();
    assert!(!late.reply.reply.granted);
    assert_eq!(late.write, None);
}

#[test]
fn outcomes_are_kept_for_the_latest_requests_only() {
    let g = grantor(0);
    let mut store = Store::default();
    let first = store.grant(&g, &grant_req("a", "g", 60_000, None), T0);
    let secret = first.lease_secret.unwrap();
    for i in 0..OUTCOMES_KEPT + 3 {
        let id = format!("r{i}");
        let reply = store.renew(&g, &renew_req("a", 1, &id, Some(&secret)), T0 + 10);
        assert!(reply.unwrap().renewed);
    }
    let record = store.lease.as_ref().unwrap();
    assert_eq!(record.outcomes.len(), OUTCOMES_KEPT);
    assert_eq!(record.outcomes[0].request_id, "r3");
}

#[test]
fn a_renewal_needs_the_secret_extends_from_now_and_is_refused_once_ended() {
    let g = grantor(0);
    let mut store = Store::default();
    let secret = store
        .grant(&g, &grant_req("a", "1", 1_000, None), T0)
        .lease_secret
        .unwrap();
    let without = store.renew(&g, &renew_req("a", 1, "2", None), T0 + 500);
    assert_eq!(without.unwrap_err().code, ErrorCode::BadLeaseSecret);
    let wrong = store.renew(&g, &renew_req("a", 1, "3", Some("x")), T0 + 500);
    assert_eq!(wrong.unwrap_err().code, ErrorCode::BadLeaseSecret);
    let renewed = store
        .renew(&g, &renew_req("a", 1, "4", Some(&secret)), T0 + 900)
        .unwrap();
    assert!(renewed.renewed);
    assert_eq!(store.lease.as_ref().unwrap().expires_at_ms, T0 + 1_900);
    let replay = g
        .renew(
            &renew_req("a", 1, "4", Some(&secret)),
            store.lease.as_ref(),
            T0 + 1_500,
        )
        .unwrap();
    assert_eq!(replay.reply.duration_ms, Some(400));
    assert_eq!(replay.write, None);
    let late = store
        .renew(&g, &renew_req("a", 1, "5", Some(&secret)), T0 + 1_901)
        .unwrap();
    assert_eq!(late.reason, Some(RenewRefusal::Expired));
    let other = store
        .renew(&g, &renew_req("b", 1, "6", Some(&secret)), T0 + 10)
        .unwrap();
    assert_eq!(other.reason, Some(RenewRefusal::NotHolder));
}

#[test]
fn a_release_frees_at_once_and_a_handover_keeps_the_resource_for_the_named_holder() {
    let g = grantor(0);
    let mut store = Store::default();
    let secret = store
        .grant(&g, &grant_req("a", "1", 5_000, None), T0)
        .lease_secret
        .unwrap();
    assert!(store.release(&g, &release_req("a", 1, &secret, Some("c")), T0 + 10));
    assert!(
        !store.release(&g, &release_req("a", 1, &secret, None), T0 + 11),
        "once"
    );
    let b = store.grant(&g, &grant_req("b", "1", 1_000, None), T0 + 20);
    assert!(!b.reply.granted);
    assert_eq!(b.reply.holder.as_deref(), Some("c"));
    let watched = g.watch("jobs", store.lease.as_ref(), T0 + 20).unwrap();
    assert_eq!(watched.handed_to.as_deref(), Some("c"));
    assert_eq!(watched.version, 3);
    let c = store.grant(&g, &grant_req("c", "1", 1_000, None), T0 + 30);
    assert_eq!(c.reply.token, Some(Token::new(2).unwrap()));
    assert_eq!(store.lease.as_ref().unwrap().handed_to, None);
    // A handover lasts the released grant's duration at most (5 s here).
    let mut later = Store::default();
    let secret = later
        .grant(&g, &grant_req("a", "1", 5_000, None), T0)
        .lease_secret
        .unwrap();
    later.release(&g, &release_req("a", 1, &secret, Some("c")), T0);
    assert!(
        !later
            .grant(&g, &grant_req("b", "2", 1_000, None), T0 + 5_000)
            .reply
            .granted
    );
    assert!(
        later
            .grant(&g, &grant_req("b", "3", 1_000, None), T0 + 5_001)
            .reply
            .granted
    );
}

#[test]
fn releasing_without_the_secret_is_refused_and_changes_nothing() {
    let g = grantor(0);
    let mut store = Store::default();
    store.grant(&g, &grant_req("a", "1", 5_000, None), T0);
    let refused = g.release(
        &release_req("a", 1, "wrong", None),
        store.lease.as_ref(),
        T0,
    );
    assert_eq!(refused.unwrap_err().code, ErrorCode::BadLeaseSecret);
    let ran_out = g
        .release(
            &release_req("a", 1, "wrong", None),
            store.lease.as_ref(),
            T0 + 5_001,
        )
        .unwrap();
    assert!(!ran_out.reply.released);
    assert_eq!(ran_out.write.map(|r| r.state), Some(LeaseState::Expired));
}

#[test]
fn a_revocation_tells_its_holder_and_the_next_grant_has_a_larger_token() {
    let g = grantor(0);
    let mut store = Store::default();
    let secret = store
        .grant(&g, &grant_req("a", "1", 5_000, None), T0)
        .lease_secret
        .unwrap();
    let revoked = g.revoke(store.lease.as_ref(), T0 + 10);
    assert!(revoked.reply.revoked);
    store.lease = revoked.write;
    assert!(!g.revoke(store.lease.as_ref(), T0 + 11).reply.revoked);
    let b = store.grant(&g, &grant_req("b", "1", 1_000, None), T0 + 20);
    assert_eq!(b.reply.token, Some(Token::new(2).unwrap()));
    let told = store
        .renew(&g, &renew_req("a", 1, "2", Some(&secret)), T0 + 30)
        .unwrap();
    assert_eq!(told.reason, Some(RenewRefusal::Revoked));
}

#[test]
fn status_and_watch_report_the_live_grant_and_versions_only_grow() {
    let g = grantor(0);
    let mut store = Store::default();
    let free = g.watch("jobs", None, T0).unwrap();
    assert_eq!((free.version, free.holder), (1, None));
    store.grant(&g, &grant_req("a", "1", 1_000, None), T0);
    let held = g.status("jobs", store.lease.as_ref(), T0 + 400).unwrap();
    assert_eq!(held.holder.as_deref(), Some("a"));
    assert_eq!(held.expires_in_ms, Some(600));
    assert_eq!(
        g.watch("jobs", store.lease.as_ref(), T0).unwrap().version,
        2
    );
    let ran_out = g.watch("jobs", store.lease.as_ref(), T0 + 1_001).unwrap();
    assert_eq!((ran_out.version, ran_out.holder), (3, None));
    assert_eq!(
        g.status("jobs", store.lease.as_ref(), T0 + 1_001)
            .unwrap()
            .holder,
        None
    );
}

#[test]
fn a_clock_skew_bound_keeps_a_grant_live_that_much_longer_everywhere() {
    let g = grantor(500);
    let mut store = Store::default();
    let secret = store
        .grant(&g, &grant_req("a", "1", 1_000, None), T0)
        .lease_secret
        .unwrap();
    assert!(
        !store
            .grant(&g, &grant_req("b", "1", 1_000, None), T0 + 1_500)
            .reply
            .granted
    );
    let renewed = store
        .renew(&g, &renew_req("a", 1, "2", Some(&secret)), T0 + 1_400)
        .unwrap();
    assert!(renewed.renewed, "still live on a clock that may run behind");
    assert!(
        store
            .grant(&g, &grant_req("b", "2", 1_000, None), T0 + 2_901)
            .reply
            .granted
    );
}

#[test]
fn a_retry_is_promised_what_the_recorded_expiry_leaves_never_the_skew_bound() {
    // A holder counts a retry's reply from the retry's send; a grantor whose clock runs ahead of
    // this one's by the skew bound grants the resource again once the recorded expiry has passed
    // on this clock. So a replayed grant or renewal may promise the time left before the recorded
    // expiry, and not the skew bound on top, which only keeps the grant live longer.
    let g = grantor(500);
    let mut store = Store::default();
    let req = grant_req("a", "1", 1_000, None);
    let secret = store.grant(&g, &req, T0).lease_secret.unwrap();
    let retry = g.grant(&req, store.lease.as_ref(), T0 + 400).unwrap();
    assert_eq!(retry.reply.reply.duration_ms, Some(600));
    let renewal = renew_req("a", 1, "2", Some(&secret));
    assert!(store.renew(&g, &renewal, T0 + 500).unwrap().renewed);
    let again = g.renew(&renewal, store.lease.as_ref(), T0 + 900).unwrap();
    assert_eq!(
        (again.reply.renewed, again.reply.duration_ms),
        (true, Some(600))
    );
    // Past the recorded expiry, within the skew bound: still live, so still held by "a" (nobody
    // else is granted), but nothing is left to promise.
    let late = g.grant(&req, store.lease.as_ref(), T0 + 1_700).unwrap();
    assert!(!late.reply.reply.granted);
    assert_eq!(late.reply.reply.holder.as_deref(), Some("a"));
    let late = g.renew(&renewal, store.lease.as_ref(), T0 + 1_700).unwrap();
    assert!(!late.reply.renewed);
    assert!(
        !store
            .grant(&g, &grant_req("b", "3", 1_000, None), T0 + 1_700)
            .reply
            .granted
    );
}

#[test]
fn fenced_writes_land_in_token_order_and_need_the_grants_secret() {
    let g = grantor(0);
    let secrets = Secrets::new([9; SERVER_KEY_LEN]);
    let write = |token: u64, secret: Option<String>, payload: &str| FencedWriteRequest {
        resource: "jobs".into(),
        payload: payload.to_owned(),
        token: Token::new(token).unwrap(),
        lease_secret: secret,
    };
    let mut fence: Option<FenceRecord<String>> = None;
    let first = g
        .fenced_write(
            write(2, Some(secrets.lease("jobs", 2)), "two"),
            fence.as_ref(),
        )
        .unwrap();
    assert!(first.reply.accepted);
    fence = first.write;
    let older = g
        .fenced_write(write(1, None, "one"), fence.as_ref())
        .unwrap();
    assert_eq!(
        (older.reply.accepted, older.reply.last_token.get()),
        (false, 2)
    );
    assert_eq!(older.write, None);
    let unproven = g.fenced_write(write(3, None, "three"), fence.as_ref());
    assert_eq!(unproven.unwrap_err().code, ErrorCode::BadLeaseSecret);
    let wrong_resource = write(3, Some(secrets.lease("other", 3)), "three");
    assert!(g.fenced_write(wrong_resource, fence.as_ref()).is_err());
    let read = g.fenced_read(fence.as_ref()).unwrap();
    assert_eq!(read.payload.as_deref(), Some("two"));
    assert_eq!(read.last_token.map(Token::get), Some(2));
    assert_eq!(g.fenced_read::<String>(None).unwrap().payload, None);
}

#[test]
fn a_batch_renews_in_order_as_if_sent_one_by_one() {
    let g = grantor(0);
    let mut store = Store::default();
    let secret = store
        .grant(&g, &grant_req("a", "1", 1_000, None), T0)
        .lease_secret
        .unwrap();
    let mut leases = BTreeMap::from([("jobs".to_owned(), store.lease.clone())]);
    let (results, changed) = g.renew_batch(
        vec![
            Ok(renew_req("a", 1, "2", Some(&secret))),
            Ok(renew_req("a", 1, "3", None)),
            Err(Refusal::new(
                ErrorCode::BadHolder,
                "holder must be printable",
            )),
            Ok(renew_req("a", 1, "2", Some(&secret))),
        ],
        &mut leases,
        T0 + 500,
    );
    assert!(matches!(&results[0], RenewBatchResult::Reply(r) if r.renewed));
    assert!(
        matches!(&results[1], RenewBatchResult::Error(e) if e.error.code == "bad_lease_secret")
    );
    assert!(matches!(&results[2], RenewBatchResult::Error(e) if e.error.code == "bad_holder"));
    assert!(matches!(&results[3], RenewBatchResult::Reply(r) if r.renewed));
    assert_eq!(changed, ["jobs"]);
    let record = leases["jobs"].as_ref().unwrap();
    assert_eq!(record.expires_at_ms, T0 + 1_500);
    assert_eq!(
        record.outcomes.len(),
        2,
        "the grant and one renewal; its retry kept nothing"
    );
}

#[test]
fn records_read_back_as_written() {
    let g = grantor(0);
    let mut store = Store::default();
    store.grant(&g, &grant_req("a", "1", 1_000, None), T0);
    let record = store.lease.unwrap();
    let text = serde_json::to_string(&record).unwrap();
    assert!(text.contains(r#""state":"held""#), "{text}");
    assert_eq!(serde_json::from_str::<LeaseRecord>(&text).unwrap(), record);
    let bare: LeaseRecord = serde_json::from_str(
        r#"{"token":3,"holder":"a","state":"released","expiresAtMs":5,"durationMs":5}"#,
    )
    .unwrap();
    assert_eq!(bare.outcomes, []);
}

mod routes {
    use super::*;
    use crate::kv_grantor::ops::{Op, Step};
    use crate::kv_grantor::{Read, Reads};

    /// A store of records as JSON text, as a binding keeps them, serving requests by route:
    /// reads what a request asks for, round after round, then commits what it decided.
    #[derive(Default)]
    pub(super) struct Records(pub(super) BTreeMap<Key, String>);

    impl Records {
        pub(super) fn serve(&mut self, g: &KvGrantor, path: &str, body: &str, now: u64) -> Step {
            let op = match Op::parse(path, body.as_bytes()) {
                Ok(op) => op,
                Err(refusal) => return Step::refused(refusal),
            };
            let mut reads = Reads::default();
            let mut pending = op.reads();
            for _ in 0..8 {
                for read in pending.drain(..) {
                    let found = self.read(&read);
                    reads.add(read, found);
                }
                match op.decide(g, &reads, now) {
                    Step::Read(more) => pending = more,
                    step => {
                        if let Step::Reply { writes, .. } = &step {
                            for (key, text) in writes {
                                match text {
                                    Some(text) => self.0.insert(key.clone(), text.clone()),
                                    None => self.0.remove(key),
                                };
                            }
                        }
                        return step;
                    }
                }
            }
            panic!("{path} kept asking for more reads");
        }

        fn read(&self, read: &Read) -> Vec<(Key, String)> {
            match read {
                Read::Get(key) => self
                    .0
                    .get(key)
                    .map(|text| vec![(key.clone(), text.clone())])
                    .unwrap_or_default(),
                Read::Range {
                    kind,
                    start,
                    end,
                    limit,
                } => {
                    let mut found: Vec<(String, Key, String)> = self
                        .0
                        .iter()
                        .filter(|(key, _)| key.kind() == *kind)
                        .map(|(key, text)| (key.name(), key.clone(), text.clone()))
                        .filter(|(name, _, _)| start <= name && name < end)
                        .collect();
                    found.sort();
                    found
                        .into_iter()
                        .take(limit.unwrap_or(usize::MAX))
                        .map(|(_, key, text)| (key, text))
                        .collect()
                }
            }
        }
    }

    pub(super) fn reply(step: Step) -> (u16, serde_json::Value) {
        match step {
            Step::Reply { status, body, .. } => (status, serde_json::from_str(&body).unwrap()),
            step => panic!("no reply: {step:?}"),
        }
    }

    #[test]
    fn requests_are_read_as_the_reference_grantor_reads_them() {
        let g = grantor(0);
        let mut store = Records::default();
        let (status, body) = reply(store.serve(&g, "/v1/nothing", "{}", T0));
        assert_eq!(
            (status, body["error"]["code"].as_str()),
            (404, Some("not_found"))
        );
        let (status, body) = reply(store.serve(&g, "/v1/grant", r#"{"resource":"r"}"#, T0));
        assert_eq!(
            (status, body["error"]["code"].as_str()),
            (400, Some("missing_field"))
        );
        let big = format!(r#"{{"resource":"{}"}}"#, "r".repeat(70_000));
        let (status, body) = reply(store.serve(&g, "/v1/status", &big, T0));
        assert_eq!(
            (status, body["error"]["code"].as_str()),
            (413, Some("body_too_large"))
        );
        assert!(store.0.is_empty(), "nothing written");
    }

    #[test]
    fn a_grant_served_by_route_writes_its_record_and_a_watch_waits_for_a_change() {
        let g = grantor(0);
        let mut store = Records::default();
        let grant = r#"{"resource":"r","holder":"a","durationMs":1000,"requestId":"1"}"#;
        let (status, body) = reply(store.serve(&g, "/v1/grant", grant, T0));
        assert_eq!((status, body["granted"].as_bool()), (200, Some(true)));
        assert_eq!(body["token"], 1);
        assert!(body["leaseSecret"].is_string());
        assert!(store.0.contains_key(&Key::Lease("r".into())));
        let watch = r#"{"resource":"r","after":2}"#;
        match store.serve(&g, "/v1/watch", watch, T0 + 10) {
            Step::Wait { key, recheck, body } => {
                assert_eq!(key, Key::Lease("r".into()));
                assert_eq!(recheck, Some(Duration::from_millis(991)));
                assert!(body.contains(r#""version":2"#), "{body}");
            }
            step => panic!("answered {step:?}"),
        }
        let (_, changed) = reply(store.serve(&g, "/v1/watch", watch, T0 + 1_001));
        assert_eq!(
            (changed["version"].as_u64(), changed["holder"].is_null()),
            (Some(3), true)
        );
        let batch = format!(
            r#"{{"renewals":[{{"resource":"r","holder":"a","token":1,"durationMs":1000,"requestId":"2","leaseSecret":{}}},{{"resource":""}}]}}"#,
            body["leaseSecret"]
        );
        let (_, results) = reply(store.serve(&g, "/v1/renew/batch", &batch, T0 + 500));
        assert_eq!(results["results"][0]["renewed"], true);
        assert_eq!(results["results"][1]["error"]["code"], "missing_field");
    }

    #[test]
    fn an_unreadable_record_fails_the_request_and_is_not_written_over() {
        let g = grantor(0);
        let mut store = Records::default();
        store.0.insert(Key::Lease("r".into()), "{".into());
        let grant = r#"{"resource":"r","holder":"a","durationMs":1000,"requestId":"1"}"#;
        let (status, body) = reply(store.serve(&g, "/v1/grant", grant, T0));
        assert_eq!(
            (status, body["error"]["code"].as_str()),
            (500, Some("internal"))
        );
        assert_eq!(store.0[&Key::Lease("r".into())], "{");
    }

    #[test]
    fn fenced_payloads_round_trip_as_json() {
        let g = grantor(0);
        let mut store = Records::default();
        let secret = Secrets::new([9; SERVER_KEY_LEN]).lease("r", 4);
        let write = format!(
            r#"{{"resource":"r","payload":{{"n":[1,2.5,"x"]}},"token":4,"leaseSecret":"{secret}"}}"#
        );
        let (_, written) = reply(store.serve(&g, "/v1/fenced/write", &write, T0));
        assert_eq!(written["accepted"], true);
        let (_, read) = reply(store.serve(&g, "/v1/fenced/read", r#"{"resource":"r"}"#, T0));
        assert_eq!(read["payload"]["n"][1], 2.5);
        assert_eq!(read["lastToken"], 4);
    }
}

mod queues {
    use super::routes::{reply, Records};
    use super::*;

    fn enqueue(store: &mut Records, g: &KvGrantor, items: &str) -> serde_json::Value {
        let body = format!(r#"{{"queue":"q","items":{items}}}"#);
        let (status, reply) = reply(store.serve(g, "/v1/queues/enqueue", &body, T0));
        assert_eq!(status, 200, "{reply}");
        reply
    }

    fn claim(
        store: &mut Records,
        g: &KvGrantor,
        worker: &str,
        extra: &str,
        now: u64,
    ) -> serde_json::Value {
        let body = format!(r#"{{"queue":"q","worker":"{worker}","claimMs":1000{extra}}}"#);
        let (status, reply) = reply(store.serve(g, "/v1/queues/claim", &body, now));
        assert_eq!(status, 200, "{reply}");
        reply
    }

    fn settle(
        store: &mut Records,
        g: &KvGrantor,
        route: &str,
        claimed: &serde_json::Value,
        worker: &str,
        extra: &str,
        now: u64,
    ) -> (u16, serde_json::Value) {
        let body = format!(
            r#"{{"queue":"q","itemId":{},"worker":"{worker}","token":{},"claimSecret":{}{extra}}}"#,
            claimed["item"]["id"], claimed["token"], claimed["claimSecret"]
        );
        reply(store.serve(g, route, &body, now))
    }

    fn stats(store: &mut Records, g: &KvGrantor, now: u64) -> [u64; 4] {
        let (_, s) = reply(store.serve(g, "/v1/queues/stats", r#"{"queue":"q"}"#, now));
        ["pending", "claimed", "done", "dead"].map(|k| s[k].as_u64().unwrap())
    }

    #[test]
    fn items_are_claimed_in_order_once_each_and_deduplicated() {
        let g = grantor(0);
        let mut store = Records::default();
        let enqueued = enqueue(
            &mut store,
            &g,
            r#"[{"payload":{"n":1},"dedupeKey":"a"},{"payload":{"n":2}},{"payload":{"n":3},"dedupeKey":"a"}]"#,
        );
        assert_eq!(
            enqueued["items"][0],
            serde_json::json!({"itemId": 1, "enqueued": true})
        );
        assert_eq!(
            enqueued["items"][2],
            serde_json::json!({"itemId": 1, "enqueued": false})
        );
        let again = enqueue(
            &mut store,
            &g,
            r#"[{"payload":0,"dedupeKey":"a"},{"payload":4}]"#,
        );
        assert_eq!(again["items"][0]["enqueued"], false);
        assert_eq!(again["items"][1]["itemId"], 3);
        let first = claim(&mut store, &g, "w1", "", T0);
        assert_eq!(
            (first["item"]["id"].as_u64(), first["token"].as_u64()),
            (Some(1), Some(1))
        );
        assert_eq!(first["item"]["payload"]["n"], 1);
        assert!(first["claimSecret"].is_string());
        let second = claim(&mut store, &g, "w2", "", T0);
        assert_eq!(second["item"]["id"], 2);
        assert_eq!(stats(&mut store, &g, T0), [1, 2, 0, 0]);
        claim(&mut store, &g, "w3", "", T0);
        assert_eq!(claim(&mut store, &g, "w4", "", T0)["claimed"], false);
    }

    #[test]
    fn a_retried_claim_gets_its_item_and_a_completion_needs_the_live_claim_and_its_secret() {
        let g = grantor(0);
        let mut store = Records::default();
        enqueue(&mut store, &g, r#"[{"payload":1},{"payload":2}]"#);
        let first = claim(&mut store, &g, "w", r#","requestId":"c1""#, T0);
        let retry = claim(&mut store, &g, "w", r#","requestId":"c1""#, T0 + 400);
        assert_eq!(retry["item"]["id"], first["item"]["id"]);
        assert_eq!(retry["claimMs"], 600);
        assert_eq!(retry["claimSecret"], first["claimSecret"]);
        let mut forged = first.clone();
        forged["claimSecret"] = serde_json::json!("nope");
        let (status, refused) = settle(&mut store, &g, "/v1/queues/complete", &forged, "w", "", T0);
        assert_eq!(
            (status, refused["error"]["code"].as_str()),
            (403, Some("bad_claim_secret"))
        );
        let (status, other) = settle(&mut store, &g, "/v1/queues/complete", &first, "x", "", T0);
        assert_eq!(
            (status, other["error"]["code"].as_str()),
            (409, Some("stale_claim"))
        );
        let done = r#","result":{"ok":true},"claimNext":{"claimMs":500}"#;
        let (status, completed) =
            settle(&mut store, &g, "/v1/queues/complete", &first, "w", done, T0);
        assert_eq!(status, 200, "{completed}");
        assert_eq!(completed["completed"], true);
        assert_eq!(
            completed["next"]["item"]["id"], 2,
            "claimNext claimed the next item"
        );
        assert_eq!(completed["next"]["claimMs"], 500);
        let claim_requests = store.0.keys().filter(|key| key.kind() == "claim").count();
        assert_eq!(claim_requests, 0, "an ended claim's request is forgotten");
        let (status, repeat) = settle(
            &mut store,
            &g,
            "/v1/queues/complete",
            &first,
            "w",
            "",
            T0 + 1,
        );
        assert_eq!(
            (status, repeat["completed"].as_bool()),
            (200, Some(true)),
            "a repeat answers the same"
        );
        let (_, item) =
            reply(store.serve(&g, "/v1/queues/item", r#"{"queue":"q","itemId":1}"#, T0));
        assert_eq!(
            (item["state"].as_str(), item["completedBy"].as_str()),
            (Some("done"), Some("w"))
        );
        assert_eq!(item["result"]["ok"], true);
        assert_eq!(stats(&mut store, &g, T0), [0, 1, 1, 0]);
        let (status, missing) =
            reply(store.serve(&g, "/v1/queues/item", r#"{"queue":"other","itemId":1}"#, T0));
        assert_eq!(
            (status, missing["error"]["code"].as_str()),
            (404, Some("no_such_item"))
        );
    }

    #[test]
    fn a_claim_that_ran_out_is_claimed_again_under_a_larger_token_and_the_old_one_is_stale() {
        let g = grantor(0);
        let mut store = Records::default();
        enqueue(&mut store, &g, r#"[{"payload":1}]"#);
        let first = claim(&mut store, &g, "w1", "", T0);
        let (status, beat) = settle(
            &mut store,
            &g,
            "/v1/queues/heartbeat",
            &first,
            "w1",
            r#","claimMs":1000"#,
            T0 + 900,
        );
        assert_eq!((status, beat["extended"].as_bool()), (200, Some(true)));
        assert_eq!(
            claim(&mut store, &g, "w2", "", T0 + 1_900)["claimed"],
            false,
            "extended to T0+1900"
        );
        let second = claim(&mut store, &g, "w2", "", T0 + 1_901);
        assert_eq!(
            (second["item"]["id"].as_u64(), second["token"].as_u64()),
            (Some(1), Some(2))
        );
        assert_eq!(second["item"]["attempts"], 2);
        let (status, stale) = settle(
            &mut store,
            &g,
            "/v1/queues/heartbeat",
            &first,
            "w1",
            r#","claimMs":1000"#,
            T0 + 1_902,
        );
        assert_eq!(
            (status, stale["error"]["code"].as_str()),
            (409, Some("stale_claim"))
        );
        assert!(stale["error"]["message"]
            .as_str()
            .unwrap()
            .contains("latest claim token is 2"));
    }

    #[test]
    fn failures_return_the_item_until_its_last_attempt_and_a_last_claim_that_runs_out_is_dead() {
        let g = grantor(0);
        let mut store = Records::default();
        enqueue(
            &mut store,
            &g,
            r#"[{"payload":1,"maxAttempts":2},{"payload":2,"maxAttempts":1}]"#,
        );
        let first = claim(&mut store, &g, "w", "", T0);
        let (_, failed) = settle(
            &mut store,
            &g,
            "/v1/queues/fail",
            &first,
            "w",
            r#","error":"boom""#,
            T0,
        );
        assert_eq!(
            (failed["state"].as_str(), failed["attempts"].as_u64()),
            (Some("pending"), Some(1))
        );
        let (_, repeat) = settle(
            &mut store,
            &g,
            "/v1/queues/fail",
            &first,
            "w",
            r#","error":"boom""#,
            T0,
        );
        assert_eq!(repeat["state"], "pending", "a repeat answers the same");
        let again = claim(&mut store, &g, "w", "", T0);
        assert_eq!(
            (again["item"]["id"].as_u64(), again["token"].as_u64()),
            (Some(1), Some(2))
        );
        let (_, dead) = settle(&mut store, &g, "/v1/queues/fail", &again, "w", "", T0);
        assert_eq!(dead["state"], "dead");
        // Item 2 gets one claim; when it runs out the item is dead, reported so before and after
        // a claim passes over it.
        let last = claim(&mut store, &g, "w", "", T0);
        assert_eq!(last["item"]["id"], 2);
        assert_eq!(stats(&mut store, &g, T0 + 1_001), [0, 0, 0, 2]);
        assert_eq!(claim(&mut store, &g, "w", "", T0 + 1_001)["claimed"], false);
        assert_eq!(stats(&mut store, &g, T0 + 1_001), [0, 0, 0, 2]);
        let (_, item) = reply(store.serve(
            &g,
            "/v1/queues/item",
            r#"{"queue":"q","itemId":2}"#,
            T0 + 1_001,
        ));
        assert_eq!(item["state"], "dead");
    }

    #[test]
    fn a_clock_skew_bound_keeps_a_claim_for_that_much_longer() {
        let g = grantor(500);
        let mut store = Records::default();
        enqueue(&mut store, &g, r#"[{"payload":1}]"#);
        claim(&mut store, &g, "w1", "", T0);
        assert_eq!(
            claim(&mut store, &g, "w2", "", T0 + 1_500)["claimed"],
            false
        );
        assert_eq!(stats(&mut store, &g, T0 + 1_500), [0, 1, 0, 0]);
        assert_eq!(claim(&mut store, &g, "w2", "", T0 + 1_501)["claimed"], true);
    }
}
