//! JavaScript values onto serde types: grantor replies (the protocol's, and the JSON of the stores
//! the adapters speak) and the arguments callers pass.
//!
//! serde-wasm-bindgen converts the other way (`to_value`, for requests). Its `from_value` is not
//! used on replies because its error path describes the offending value with `Debug`, which
//! wasm-bindgen renders by walking the value recursively in JavaScript: a hostile reply with a
//! deeply nested array where a number belongs overflows the JavaScript stack and takes the
//! process down. This deserializer never describes a value: an error is just [`Unfit`], which the
//! caller maps to its own failure (no serde message text, no formatting code). It reads only the
//! own properties a type names (so nothing from a prototype, and nothing it would ignore), treats
//! `null` and `undefined` alike as "no value", and accepts numbers as integers only when they are
//! safe integers.

use std::cell::RefCell;

use js_sys::{Array, Object};
use serde::de::{self, DeserializeOwned, Deserializer, IntoDeserializer, Visitor};
use wasm_bindgen::prelude::*;

/// A value does not fit the type asked for. Deliberately without detail: see the module docs.
#[derive(Debug)]
pub struct Unfit;

impl core::fmt::Display for Unfit {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("the value does not fit")
    }
}

impl std::error::Error for Unfit {}

impl de::Error for Unfit {
    fn custom<T: core::fmt::Display>(_: T) -> Unfit {
        Unfit
    }
}

/// `value` as the serde type `T`, reading only the fields its structs name: for replies, and for
/// argument objects that carry more than the wire needs (a `signal`, a holder's timing).
pub fn from_js<T: DeserializeOwned>(value: &JsValue) -> Result<T, Unfit> {
    T::deserialize(Value(value.clone(), false))
}

/// `value` as the serde type `T`, its structs reading every own property, so that a type that
/// refuses unknown fields (every protocol request does) refuses them: for a value a caller
/// passes as part of the wire request itself (enqueued items, a `claimNext`).
pub fn from_js_strict<T: DeserializeOwned>(value: &JsValue) -> Result<T, Unfit> {
    T::deserialize(Value(value.clone(), true))
}

/// The name by which [`Passed`] asks for the JavaScript value itself.
const PASSED: &str = "tenure::wasm::value::Passed";

thread_local! {
    /// Where the deserializer leaves the value a [`Passed`] asked for.
    static HANDED: RefCell<Option<JsValue>> = const { RefCell::new(None) };
}

/// A JSON value carried untouched (a payload, a result, an error): the caller's own value,
/// passed through to `JSON.stringify` as it is.
pub struct Passed(pub JsValue);

impl Default for Passed {
    fn default() -> Passed {
        Passed(JsValue::UNDEFINED)
    }
}

impl<'de> de::Deserialize<'de> for Passed {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Passed, D::Error> {
        struct Take;
        impl Visitor<'_> for Take {
            type Value = Passed;
            fn expecting(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.write_str("a JavaScript value")
            }
            fn visit_unit<E: de::Error>(self) -> Result<Passed, E> {
                HANDED
                    .with(|handed| handed.borrow_mut().take())
                    .map(Passed)
                    .ok_or_else(|| E::custom(""))
            }
        }
        deserializer.deserialize_newtype_struct(PASSED, Take)
    }
}

impl serde::Serialize for Passed {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serde_wasm_bindgen::preserve::serialize(&self.0, serializer)
    }
}

/// A JavaScript value being read, and whether its structs read every own property.
struct Value(JsValue, bool);

impl Value {
    fn nullish(&self) -> bool {
        self.0.is_null() || self.0.is_undefined()
    }

    /// The value as a safe integer, if it is one.
    fn integer(&self) -> Option<f64> {
        // `Number.isSafeInteger`: finite, whole, within 2^53 - 1 either way.
        self.0
            .as_f64()
            .filter(|n| n.fract() == 0.0 && n.abs() <= crate::protocol::MAX_TOKEN as f64)
    }
}

impl<'de> Deserializer<'de> for Value {
    type Error = Unfit;

    /// Scalars as what they are; containers are never read without a type asking for them.
    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Unfit> {
        if self.nullish() {
            visitor.visit_unit()
        } else if let Some(b) = self.0.as_bool() {
            visitor.visit_bool(b)
        } else if let Some(n) = self.integer() {
            if n >= 0.0 {
                visitor.visit_u64(n as u64)
            } else {
                visitor.visit_i64(n as i64)
            }
        } else if let Some(n) = self.0.as_f64() {
            visitor.visit_f64(n)
        } else if let Some(s) = self.0.as_string() {
            visitor.visit_string(s)
        } else {
            Err(Unfit)
        }
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Unfit> {
        visitor.visit_bool(self.0.as_bool().ok_or(Unfit)?)
    }

    fn deserialize_u64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Unfit> {
        match self.integer() {
            Some(n) if n >= 0.0 => visitor.visit_u64(n as u64),
            _ => Err(Unfit),
        }
    }

    fn deserialize_u8<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Unfit> {
        self.deserialize_u64(visitor)
    }

    fn deserialize_u16<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Unfit> {
        self.deserialize_u64(visitor)
    }

    fn deserialize_u32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Unfit> {
        self.deserialize_u64(visitor)
    }

    fn deserialize_i64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Unfit> {
        visitor.visit_i64(self.integer().ok_or(Unfit)? as i64)
    }

    fn deserialize_i8<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Unfit> {
        self.deserialize_i64(visitor)
    }

    fn deserialize_i16<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Unfit> {
        self.deserialize_i64(visitor)
    }

    fn deserialize_i32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Unfit> {
        self.deserialize_i64(visitor)
    }

    fn deserialize_f32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Unfit> {
        self.deserialize_f64(visitor)
    }

    fn deserialize_f64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Unfit> {
        visitor.visit_f64(self.0.as_f64().ok_or(Unfit)?)
    }

    fn deserialize_char<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Unfit> {
        self.deserialize_string(visitor)
    }

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Unfit> {
        self.deserialize_string(visitor)
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Unfit> {
        visitor.visit_string(self.0.as_string().ok_or(Unfit)?)
    }

    fn deserialize_bytes<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Unfit> {
        Err(Unfit)
    }

    fn deserialize_byte_buf<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Unfit> {
        Err(Unfit)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Unfit> {
        if self.nullish() {
            visitor.visit_none()
        } else {
            visitor.visit_some(self)
        }
    }

    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Unfit> {
        if self.nullish() {
            visitor.visit_unit()
        } else {
            Err(Unfit)
        }
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        visitor: V,
    ) -> Result<V::Value, Unfit> {
        self.deserialize_unit(visitor)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Unfit> {
        if name == PASSED {
            HANDED.with(|handed| *handed.borrow_mut() = Some(self.0));
            return visitor.visit_unit();
        }
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Unfit> {
        let array: Array = self.0.dyn_into().map_err(|_| Unfit)?;
        let length = array.length();
        visitor.visit_seq(Elements {
            array,
            next: 0,
            length,
            strict: self.1,
        })
    }

    fn deserialize_tuple<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value, Unfit> {
        // Exactly as many elements as the tuple has.
        if !Array::is_array(&self.0) || Array::from(&self.0).length() as usize != len {
            return Err(Unfit);
        }
        self.deserialize_seq(visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, Unfit> {
        self.deserialize_tuple(len, visitor)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Unfit> {
        let object = plain_object(&self.0)?;
        let keys = Object::keys(&object);
        let length = keys.length();
        visitor.visit_map(Properties {
            object,
            keys: Keys::Own {
                keys,
                next: 0,
                length,
            },
            value: None,
            strict: self.1,
        })
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Unfit> {
        if self.1 {
            return self.deserialize_map(visitor);
        }
        let object = plain_object(&self.0)?;
        visitor.visit_map(Properties {
            object,
            keys: Keys::Named(fields.iter()),
            value: None,
            strict: false,
        })
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Unfit> {
        // Unit variants only, as their names.
        let name = self.0.as_string().ok_or(Unfit)?;
        visitor.visit_enum(IntoDeserializer::<Unfit>::into_deserializer(name))
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Unfit> {
        self.deserialize_string(visitor)
    }

    /// What a type ignores is not read at all, however deep it goes.
    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Unfit> {
        visitor.visit_unit()
    }
}

/// `value` as an object that is neither an array nor `null`.
fn plain_object(value: &JsValue) -> Result<Object, Unfit> {
    if !value.is_object() || Array::is_array(value) {
        return Err(Unfit);
    }
    Ok(value.clone().unchecked_into())
}

/// An own property, `None` when absent (or `undefined`, which JSON cannot say).
fn own(object: &Object, key: &str) -> Option<JsValue> {
    let key = JsValue::from_str(key);
    if !Object::has_own(object, &key) {
        return None;
    }
    js_sys::Reflect::get(object, &key)
        .ok()
        .filter(|value| !value.is_undefined())
}

struct Elements {
    array: Array,
    next: u32,
    length: u32,
    strict: bool,
}

impl<'de> de::SeqAccess<'de> for Elements {
    type Error = Unfit;

    fn next_element_seed<T: de::DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Unfit> {
        if self.next >= self.length {
            return Ok(None);
        }
        let value = self.array.get(self.next);
        self.next += 1;
        seed.deserialize(Value(value, self.strict)).map(Some)
    }

    fn size_hint(&self) -> Option<usize> {
        Some((self.length - self.next) as usize)
    }
}

/// Which properties of an object are read: the fields a struct names (own properties only), or
/// every own enumerable one (a map, or a struct read strictly). One type for both, so that each
/// struct's deserializer is built once.
enum Keys {
    Named(core::slice::Iter<'static, &'static str>),
    Own { keys: Array, next: u32, length: u32 },
}

struct Properties {
    object: Object,
    keys: Keys,
    value: Option<JsValue>,
    strict: bool,
}

impl<'de> de::MapAccess<'de> for Properties {
    type Error = Unfit;

    fn next_key_seed<K: de::DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Unfit> {
        let key = match &mut self.keys {
            Keys::Named(fields) => loop {
                let Some(field) = fields.next() else {
                    return Ok(None);
                };
                if let Some(value) = own(&self.object, field) {
                    self.value = Some(value);
                    break String::from(*field);
                }
            },
            Keys::Own { keys, next, length } => {
                if *next >= *length {
                    return Ok(None);
                }
                let key = keys.get(*next);
                *next += 1;
                let value = js_sys::Reflect::get(&self.object, &key).map_err(|_| Unfit)?;
                self.value = Some(value);
                key.as_string().ok_or(Unfit)?
            }
        };
        let key: de::value::StringDeserializer<Unfit> = key.into_deserializer();
        seed.deserialize(key).map(Some)
    }

    fn next_value_seed<V: de::DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Unfit> {
        seed.deserialize(Value(self.value.take().ok_or(Unfit)?, self.strict))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{GrantReply, RenewRefusal, RenewReply};
    use wasm_bindgen_test::wasm_bindgen_test;

    fn json(text: &str) -> JsValue {
        js_sys::JSON::parse(text).unwrap()
    }

    #[wasm_bindgen_test]
    fn replies_onto_protocol_types() {
        let reply: GrantReply = from_js(&json(
            r#"{"granted":true,"token":5,"durationMs":900,"extra":[[[1]]]}"#,
        ))
        .unwrap();
        assert_eq!(
            (
                reply.granted,
                reply.token.map(|t| t.get()),
                reply.duration_ms
            ),
            (true, Some(5), Some(900))
        );
        let refused: RenewReply =
            from_js(&json(r#"{"renewed":false,"reason":"not_holder"}"#)).unwrap();
        assert_eq!(refused.reason, Some(RenewRefusal::NotHolder));
    }

    #[wasm_bindgen_test]
    fn what_does_not_fit_is_unfit_without_walking_it() {
        let deep = format!("{}5{}", "[".repeat(50_000), "]".repeat(50_000));
        for text in [
            format!(r#"{{"granted":true,"token":{deep}}}"#),
            r#"{"granted":"true","token":5}"#.to_owned(),
            r#"{"granted":true,"token":9007199254740992}"#.to_owned(),
            r#"{"granted":true,"token":1.5}"#.to_owned(),
            r#"{"granted":true,"token":-1}"#.to_owned(),
            r#"{"__proto__":{"granted":true,"token":7}}"#.to_owned(),
            r#"[true,5]"#.to_owned(),
        ] {
            assert!(from_js::<GrantReply>(&json(&text)).is_err(), "{text}");
        }
        let refused = json(r#"{"renewed":false,"reason":"gone"}"#);
        assert!(from_js::<RenewReply>(&refused).is_err());
    }

    #[wasm_bindgen_test]
    fn strictly_read_requests_refuse_unknown_fields() {
        use crate::protocol::{NewItem, NextClaim};
        let next = json(r#"{"claimMs":900,"requestId":"r"}"#);
        assert!(from_js_strict::<NextClaim>(&next).is_ok());
        let typo = json(r#"{"claimMs":900,"requestID":"r"}"#);
        assert!(from_js_strict::<NextClaim>(&typo).is_err());
        assert!(from_js::<NextClaim>(&typo).is_ok());
        let items =
            json(r#"[{"payload":{"deep":[[1]]},"maxAttempts":3},{"payload":1,"maxAttempt":3}]"#);
        assert!(from_js_strict::<Vec<NewItem<Passed>>>(&items).is_err());
        let items = json(r#"[{"payload":{"deep":[[1]]},"maxAttempts":3,"dedupeKey":"k"}]"#);
        assert!(from_js_strict::<Vec<NewItem<Passed>>>(&items).is_ok());
    }

    #[wasm_bindgen_test]
    fn tuples_have_exactly_their_length() {
        assert!(from_js::<(i64, String, i64)>(&json(r#"[1,"a",2]"#)).is_ok());
        assert!(from_js::<(i64, String, i64)>(&json(r#"[1,"a",2,3]"#)).is_err());
        assert!(from_js::<(i64, String, i64)>(&json(r#"[1,"a"]"#)).is_err());
    }
}
