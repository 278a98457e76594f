//! Reading spanned JSON into typed schema structs, with diagnostics.
//!
//! Every block has a closed field set: [`ObjReader`] takes the members a block defines and
//! [`ObjReader::finish`] reports every other member as an error that names the block, the
//! member and the fields the block does define. The [`block!`](crate::block),
//! [`tagged!`](crate::tagged) and [`tokens!`](crate::tokens) macros declare blocks,
//! discriminated unions and string tokens once, and derive both reading ([`FromJson`]) and
//! writing back ([`ToJson`]) from that one declaration.

use std::fmt::Write as _;

use crate::diag::{Diagnostics, Severity, SourceFile};
use crate::jsonc::{Kind, Member, Span, Value};

/// Whether a reader is checking sources for a build (unknown component types are errors)
/// or loading compiled output (unknown components are kept whole as JSON, as the spec says).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    /// `dh build` / `dh check`: every rule applies.
    #[default]
    Build,
    /// The engine loading a compiled pallet.
    Load,
}

/// The reading context: the file being read, where diagnostics go, the JSON path of the
/// value being read, and the mode.
pub struct Cx<'a> {
    /// The file being read.
    pub file: &'a SourceFile,
    /// Where diagnostics go.
    pub diags: &'a mut Diagnostics,
    /// Build or load.
    pub mode: Mode,
    path: String,
}

impl<'a> Cx<'a> {
    /// A context for reading `file` in `mode`.
    pub fn new(file: &'a SourceFile, diags: &'a mut Diagnostics, mode: Mode) -> Cx<'a> {
        Cx {
            file,
            diags,
            mode,
            path: String::new(),
        }
    }

    /// The JSON path of the value being read (`objects[3].components[0]`).
    pub fn path(&self) -> &str {
        &self.path
    }

    /// Runs `f` with `key` appended to the path.
    pub fn at_key<R>(&mut self, key: &str, f: impl FnOnce(&mut Cx<'a>) -> R) -> R {
        let len = self.path.len();
        if !self.path.is_empty() {
            self.path.push('.');
        }
        self.path.push_str(key);
        let r = f(self);
        self.path.truncate(len);
        r
    }

    /// Runs `f` with `[index]` appended to the path.
    pub fn at_index<R>(&mut self, index: usize, f: impl FnOnce(&mut Cx<'a>) -> R) -> R {
        let len = self.path.len();
        let _ = write!(self.path, "[{index}]");
        let r = f(self);
        self.path.truncate(len);
        r
    }

    /// Runs `f` with the path replaced by `path` (to report against a stored location).
    pub fn at_path<R>(&mut self, path: &str, f: impl FnOnce(&mut Cx<'a>) -> R) -> R {
        let saved = std::mem::replace(&mut self.path, path.to_string());
        let r = f(self);
        self.path = saved;
        r
    }

    /// An error at `span`, against the current path.
    pub fn error(&mut self, span: Span, message: impl Into<String>) {
        self.diags
            .push(Severity::Error, self.file, span, &self.path, message);
    }

    /// A warning at `span`, against the current path.
    pub fn warning(&mut self, span: Span, message: impl Into<String>) {
        self.diags
            .push(Severity::Warning, self.file, span, &self.path, message);
    }

    /// An error at a stored location.
    pub fn error_at(&mut self, at: &At, span: Span, message: impl Into<String>) {
        self.diags
            .push(Severity::Error, self.file, span, &at.path, message);
    }

    /// A warning at a stored location.
    pub fn warning_at(&mut self, at: &At, span: Span, message: impl Into<String>) {
        self.diags
            .push(Severity::Warning, self.file, span, &at.path, message);
    }

    /// An error saying what was expected and what was found.
    pub fn expected(&mut self, what: &str, found: &Value) {
        let msg = format!("expected {what}, found {}", found.kind.describe());
        self.error(found.span, msg);
    }
}

/// Where a block was read from: its span, its JSON path, and the span of each member it
/// took, so validation after reading can point at the exact member.
#[derive(Debug, Clone, Default)]
pub struct At {
    /// The block's span.
    pub span: Span,
    /// The block's JSON path.
    pub path: String,
    /// `(member, value span)` for each member present.
    pub fields: Vec<(&'static str, Span)>,
}

impl At {
    /// The span of member `name`'s value, or the block's span when it is absent.
    pub fn field(&self, name: &str) -> Span {
        self.fields
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, s)| *s)
            .unwrap_or(self.span)
    }

    /// Whether member `name` was written.
    pub fn has(&self, name: &str) -> bool {
        self.fields.iter().any(|(n, _)| *n == name)
    }

    /// The path of member `name` (`objects[3].components[0].size`).
    pub fn field_path(&self, name: &str) -> String {
        if self.path.is_empty() {
            name.to_string()
        } else {
            format!("{}.{}", self.path, name)
        }
    }
}

/// A value that can be read from JSON, reporting problems to the context.
pub trait FromJson: Sized {
    /// Reads `v`; on failure reports why and returns `None`.
    fn from_json(cx: &mut Cx, v: &Value) -> Option<Self>;
}

/// A value that writes back to JSON.
pub trait ToJson {
    /// The value as JSON.
    fn to_json(&self) -> Value;
    /// Whether a member holding this value is left out when writing (an unset option,
    /// an empty list).
    fn is_unset(&self) -> bool {
        false
    }
}

/// A block with a closed field set, declared with [`block!`](crate::block).
pub trait Block: Sized {
    /// The block's name in diagnostics (`dh.camera`, `object record`, `lighting.lightmap`).
    const BLOCK: &'static str;
    /// The members the block defines, in the order they are written back.
    const FIELDS: &'static [&'static str];
    /// Reads the members from an opened object.
    fn read_fields(cx: &mut Cx, o: &ObjReader) -> Self;
    /// Writes the members (unset ones left out) after any members already in `out`.
    fn write_fields(&self, out: &mut Vec<Member>);
}

/// An object being read as one block: it hands out the members the block defines and,
/// at [`finish`](ObjReader::finish), reports the rest.
pub struct ObjReader<'v> {
    /// The object value.
    pub value: &'v Value,
    members: &'v [Member],
    block: &'static str,
    fields: &'static [&'static str],
    tag: Option<&'static str>,
    path: String,
}

impl<'v> ObjReader<'v> {
    /// Opens `v` as the block `block` with field set `fields`; reports and returns `None`
    /// when `v` is not an object.
    pub fn open(
        cx: &mut Cx,
        v: &'v Value,
        block: &'static str,
        fields: &'static [&'static str],
    ) -> Option<ObjReader<'v>> {
        Self::open_tagged(cx, v, block, fields, None)
    }

    /// Like [`open`](ObjReader::open), for a member of a discriminated union whose tag
    /// member (`$type`, `type`) is allowed beside the fields.
    pub fn open_tagged(
        cx: &mut Cx,
        v: &'v Value,
        block: &'static str,
        fields: &'static [&'static str],
        tag: Option<&'static str>,
    ) -> Option<ObjReader<'v>> {
        match &v.kind {
            Kind::Object(members) => Some(ObjReader {
                value: v,
                members,
                block,
                fields,
                tag,
                path: cx.path().to_string(),
            }),
            _ => {
                cx.expected(&format!("an object ({block})"), v);
                None
            }
        }
    }

    /// The block's name.
    pub fn block(&self) -> &'static str {
        self.block
    }

    /// The member named `name`, if written.
    pub fn member(&self, name: &str) -> Option<&'v Member> {
        debug_assert!(
            self.fields.contains(&name) || Some(name) == self.tag,
            "{name} is not in {}'s field set",
            self.block
        );
        self.members.iter().find(|m| m.key == name)
    }

    /// Where the block is, with the span of every defined member present.
    pub fn at(&self) -> At {
        At {
            span: self.value.span,
            path: self.path.clone(),
            fields: self
                .fields
                .iter()
                .filter_map(|f| {
                    self.members
                        .iter()
                        .find(|m| m.key == *f)
                        .map(|m| (*f, m.value.span))
                })
                .collect(),
        }
    }

    /// Reads optional member `name` (absent or `null`: `None`).
    pub fn opt<T: FromJson>(&self, cx: &mut Cx, name: &'static str) -> Option<T> {
        let m = self.member(name)?;
        if matches!(m.value.kind, Kind::Null) {
            return None;
        }
        cx.at_key(name, |cx| T::from_json(cx, &m.value))
    }

    /// Reads required member `name`; when absent reports "missing required member".
    pub fn req<T: FromJson + Default>(&self, cx: &mut Cx, name: &'static str) -> T {
        match self.member(name) {
            Some(m) if !matches!(m.value.kind, Kind::Null) => cx
                .at_key(name, |cx| T::from_json(cx, &m.value))
                .unwrap_or_default(),
            _ => {
                let block = self.block;
                cx.error(
                    self.value.span,
                    format!("{block} is missing its required member '{name}'"),
                );
                T::default()
            }
        }
    }

    /// Reads list member `name` (absent: empty).
    pub fn list<T: FromJson>(&self, cx: &mut Cx, name: &'static str) -> Vec<T> {
        self.opt::<Vec<T>>(cx, name).unwrap_or_default()
    }

    /// Reports every member the block does not define. Call once, after reading.
    pub fn finish(self, cx: &mut Cx) {
        for m in self.members {
            if self.fields.contains(&m.key.as_str()) || Some(m.key.as_str()) == self.tag {
                continue;
            }
            let msg = unknown_member_message(self.block, &m.key, self.fields);
            cx.at_path(&self.path, |cx| cx.error(m.key_span, msg));
        }
    }
}

/// The closed-field-set message: names the block, the member and the block's field set,
/// or says the block holds no fields at all; with "did you mean" and the nearest field
/// when one is near ([`crate::diag::did_you_mean`]).
pub fn unknown_member_message(block: &str, member: &str, fields: &[&str]) -> String {
    if fields.is_empty() {
        format!("unknown member '{member}' in {block}: {block} holds no fields at all")
    } else {
        format!(
            "unknown member '{member}' in {block}; the fields of {block} are: {}{}",
            fields.join(", "),
            crate::diag::did_you_mean(member, fields.iter().copied())
        )
    }
}

/// Reads a whole value as block `T`, reporting unknown members.
pub fn read_block<T: Block>(cx: &mut Cx, v: &Value) -> Option<T> {
    let o = ObjReader::open(cx, v, T::BLOCK, T::FIELDS)?;
    let r = T::read_fields(cx, &o);
    o.finish(cx);
    Some(r)
}

/// Writes block `T` as a JSON object.
pub fn write_block<T: Block>(b: &T) -> Value {
    let mut members = Vec::new();
    b.write_fields(&mut members);
    Value::synthetic(Kind::Object(members))
}

/// A member built in code.
pub fn member(key: &str, value: Value) -> Member {
    Member {
        key: key.to_string(),
        key_span: Span::default(),
        value,
    }
}

/// The message for a token that is not one of `allowed`: names the token and lists the
/// ones that would have worked, with "did you mean" and the nearest when one is near.
pub fn unknown_token_message(what: &str, token: &str, allowed: &[&str]) -> String {
    format!(
        "'{token}' is not a valid {what}; expected one of: {}{}",
        allowed.join(", "),
        crate::diag::did_you_mean(token, allowed.iter().copied())
    )
}

// ---- FromJson / ToJson for plain types -------------------------------------------------

impl FromJson for bool {
    fn from_json(cx: &mut Cx, v: &Value) -> Option<Self> {
        match v.kind {
            Kind::Bool(b) => Some(b),
            _ => {
                cx.expected("true or false", v);
                None
            }
        }
    }
}
impl ToJson for bool {
    fn to_json(&self) -> Value {
        Value::synthetic(Kind::Bool(*self))
    }
}

impl FromJson for f64 {
    fn from_json(cx: &mut Cx, v: &Value) -> Option<Self> {
        match v.kind {
            Kind::Number(n) if n.is_finite() => Some(n),
            _ => {
                cx.expected("a number", v);
                None
            }
        }
    }
}
impl ToJson for f64 {
    fn to_json(&self) -> Value {
        Value::synthetic(Kind::Number(*self))
    }
}

impl FromJson for f32 {
    fn from_json(cx: &mut Cx, v: &Value) -> Option<Self> {
        match v.kind {
            Kind::Number(n) if n.is_finite() && n.abs() <= f32::MAX as f64 => Some(n as f32),
            _ => {
                cx.expected("a number", v);
                None
            }
        }
    }
}
impl ToJson for f32 {
    fn to_json(&self) -> Value {
        // Through the shortest decimal form of the f32, so 0.1f32 writes as 0.1.
        let n = format!("{self}").parse::<f64>().unwrap_or(*self as f64);
        Value::synthetic(Kind::Number(n))
    }
}

macro_rules! int_json {
    ($($t:ty),*) => {$(
        impl FromJson for $t {
            fn from_json(cx: &mut Cx, v: &Value) -> Option<Self> {
                match v.kind {
                    Kind::Number(n)
                        if n.fract() == 0.0 && n >= <$t>::MIN as f64 && n <= <$t>::MAX as f64 =>
                    {
                        Some(n as $t)
                    }
                    Kind::Number(n) => {
                        cx.error(
                            v.span,
                            format!(
                                "expected a whole number from {} to {}, found {n}",
                                <$t>::MIN,
                                <$t>::MAX
                            ),
                        );
                        None
                    }
                    _ => {
                        cx.expected("a whole number", v);
                        None
                    }
                }
            }
        }
        impl ToJson for $t {
            fn to_json(&self) -> Value {
                Value::synthetic(Kind::Number(*self as f64))
            }
        }
    )*};
}
int_json!(u8, u16, u32, i32, i64, u64);

impl FromJson for String {
    fn from_json(cx: &mut Cx, v: &Value) -> Option<Self> {
        match &v.kind {
            Kind::String(s) => Some(s.clone()),
            _ => {
                cx.expected("a string", v);
                None
            }
        }
    }
}
impl ToJson for String {
    fn to_json(&self) -> Value {
        Value::synthetic(Kind::String(self.clone()))
    }
}

impl<T: FromJson> FromJson for Vec<T> {
    fn from_json(cx: &mut Cx, v: &Value) -> Option<Self> {
        match &v.kind {
            Kind::Array(items) => Some(
                items
                    .iter()
                    .enumerate()
                    .filter_map(|(i, item)| cx.at_index(i, |cx| T::from_json(cx, item)))
                    .collect(),
            ),
            _ => {
                cx.expected("an array", v);
                None
            }
        }
    }
}
impl<T: ToJson> ToJson for Vec<T> {
    fn to_json(&self) -> Value {
        Value::synthetic(Kind::Array(self.iter().map(ToJson::to_json).collect()))
    }
    fn is_unset(&self) -> bool {
        self.is_empty()
    }
}

impl<T: ToJson> ToJson for Option<T> {
    fn to_json(&self) -> Value {
        match self {
            Some(v) => v.to_json(),
            None => Value::synthetic(Kind::Null),
        }
    }
    fn is_unset(&self) -> bool {
        self.is_none()
    }
}

impl<T: ToJson> ToJson for Box<T> {
    fn to_json(&self) -> Value {
        (**self).to_json()
    }
    fn is_unset(&self) -> bool {
        (**self).is_unset()
    }
}
impl<T: FromJson> FromJson for Box<T> {
    fn from_json(cx: &mut Cx, v: &Value) -> Option<Self> {
        T::from_json(cx, v).map(Box::new)
    }
}

/// Raw JSON, kept whole (an unknown component at load, an opaque payload).
impl FromJson for Value {
    fn from_json(_cx: &mut Cx, v: &Value) -> Option<Self> {
        Some(v.clone())
    }
}
impl ToJson for Value {
    fn to_json(&self) -> Value {
        self.clone()
    }
}

impl Default for Value {
    fn default() -> Self {
        Value::synthetic(Kind::Null)
    }
}

/// An object whose members are free keys (a material slot table, a bake set's lights),
/// in written order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Table<T> {
    /// `(key, key span, value)` in written order.
    pub entries: Vec<(String, Span, T)>,
}

impl<T> Table<T> {
    /// The value under `key`.
    pub fn get(&self, key: &str) -> Option<&T> {
        self.entries.iter().find(|e| e.0 == key).map(|e| &e.2)
    }
    /// Iterates `(key, value)`.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &T)> {
        self.entries.iter().map(|e| (e.0.as_str(), &e.2))
    }
    /// Number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }
    /// Whether there are no entries.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

impl<T: FromJson> FromJson for Table<T> {
    fn from_json(cx: &mut Cx, v: &Value) -> Option<Self> {
        match &v.kind {
            Kind::Object(members) => Some(Table {
                entries: members
                    .iter()
                    .filter_map(|m| {
                        cx.at_key(&m.key, |cx| T::from_json(cx, &m.value))
                            .map(|t| (m.key.clone(), m.key_span, t))
                    })
                    .collect(),
            }),
            _ => {
                cx.expected("an object", v);
                None
            }
        }
    }
}
impl<T: ToJson> ToJson for Table<T> {
    fn to_json(&self) -> Value {
        Value::synthetic(Kind::Object(
            self.entries
                .iter()
                .map(|(k, _, v)| member(k, v.to_json()))
                .collect(),
        ))
    }
    fn is_unset(&self) -> bool {
        self.entries.is_empty()
    }
}

// ---- Declaration macros ----------------------------------------------------------------

/// Declares a block: a struct with a closed field set that reads from and writes to JSON.
///
/// ```ignore
/// block! {
///     /// A camera.
///     pub struct Camera = "dh.camera" {
///         /// Its name.
///         req name: String = "name",
///         /// Vertical field of view in degrees.
///         opt fov: f64 = "fov",
///         /// Shapes.
///         list shapes: Shape = "shapes",
///     }
/// }
/// ```
///
/// `req` fields have type `T` (missing: an error and `T::default()`), `opt` fields
/// `Option<T>`, `list` fields `Vec<T>` (missing: empty). Every struct also gets
/// `pub at: At`, where it was read.
#[macro_export]
macro_rules! block {
    (
        $(#[$meta:meta])*
        $vis:vis struct $name:ident = $block:literal {
            $( $(#[$fmeta:meta])* $mode:ident $field:ident : $ty:ty = $wire:literal ),* $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Default)]
        $vis struct $name {
            $( $(#[$fmeta])* pub $field: $crate::block!(@ty $mode $ty), )*
            /// Where the block was read from.
            pub at: $crate::read::At,
        }

        impl $crate::read::Block for $name {
            const BLOCK: &'static str = $block;
            const FIELDS: &'static [&'static str] = &[$($wire),*];
            #[allow(unused_variables)]
            fn read_fields(cx: &mut $crate::read::Cx, o: &$crate::read::ObjReader) -> Self {
                $name {
                    $( $field: $crate::block!(@read $mode cx o $wire), )*
                    at: o.at(),
                }
            }
            #[allow(unused_variables)]
            fn write_fields(&self, out: &mut Vec<$crate::jsonc::Member>) {
                $(
                    if !$crate::read::ToJson::is_unset(&self.$field) {
                        out.push($crate::read::member($wire, $crate::read::ToJson::to_json(&self.$field)));
                    }
                )*
            }
        }

        impl $crate::read::FromJson for $name {
            fn from_json(cx: &mut $crate::read::Cx, v: &$crate::jsonc::Value) -> Option<Self> {
                $crate::read::read_block::<$name>(cx, v)
            }
        }

        impl $crate::read::ToJson for $name {
            fn to_json(&self) -> $crate::jsonc::Value {
                $crate::read::write_block(self)
            }
        }
    };
    (@ty req $ty:ty) => { $ty };
    (@ty opt $ty:ty) => { Option<$ty> };
    (@ty list $ty:ty) => { Vec<$ty> };
    (@read req $cx:ident $o:ident $wire:literal) => { $o.req($cx, $wire) };
    (@read opt $cx:ident $o:ident $wire:literal) => { $o.opt($cx, $wire) };
    (@read list $cx:ident $o:ident $wire:literal) => { $o.list($cx, $wire) };
}

/// Declares a discriminated union of blocks keyed by a tag member (`$type`, `type`).
///
/// ```ignore
/// tagged! {
///     /// A collider shape.
///     pub enum Shape by "type" as "collider shape" {
///         "box" => Box(BoxShape),
///         "sphere" => Sphere(SphereShape),
///     }
/// }
/// ```
///
/// Add `unknown Unknown` after the braces to keep an unknown tag whole as JSON when loading
/// (`Mode::Load`); in `Mode::Build` an unknown tag is an error listing the known ones.
#[macro_export]
macro_rules! tagged {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident by $tag:literal as $what:literal {
            $( $(#[$vmeta:meta])* $key:literal => $variant:ident($ty:ty) ),* $(,)?
        } $(unknown $unknown:ident)?
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone)]
        $vis enum $name {
            $( $(#[$vmeta])* $variant($ty), )*
            $(
                /// A member whose tag this build does not know, kept whole as JSON.
                $unknown($crate::jsonc::Value),
            )?
        }

        impl $name {
            /// The tag member's name.
            pub const TAG: &'static str = $tag;
            /// Every known tag, in declaration order.
            pub const TAGS: &'static [&'static str] = &[$($key),*];

            /// This member's tag.
            pub fn tag(&self) -> &str {
                match self {
                    $( $name::$variant(_) => $key, )*
                    $( $name::$unknown(v) => v.get($tag).and_then(|t| t.as_str()).unwrap_or(""), )?
                }
            }
        }

        impl $crate::read::FromJson for $name {
            fn from_json(cx: &mut $crate::read::Cx, v: &$crate::jsonc::Value) -> Option<Self> {
                let Some(tag_value) = v.get($tag) else {
                    if v.as_object().is_none() {
                        cx.expected(concat!("an object (", $what, ")"), v);
                    } else {
                        cx.error(v.span, format!(
                            "a {} needs a '{}' member; expected one of: {}",
                            $what, $tag, Self::TAGS.join(", ")
                        ));
                    }
                    return None;
                };
                let Some(tag) = tag_value.as_str() else {
                    cx.expected(concat!("a string naming the ", $what, "'s type"), tag_value);
                    return None;
                };
                match tag {
                    $(
                        $key => {
                            let o = $crate::read::ObjReader::open_tagged(
                                cx, v,
                                <$ty as $crate::read::Block>::BLOCK,
                                <$ty as $crate::read::Block>::FIELDS,
                                Some($tag),
                            )?;
                            let r = <$ty as $crate::read::Block>::read_fields(cx, &o);
                            o.finish(cx);
                            Some($name::$variant(r))
                        }
                    )*
                    other => {
                        $(
                            if cx.mode == $crate::read::Mode::Load {
                                return Some($name::$unknown(v.clone()));
                            }
                        )?
                        let msg = $crate::read::unknown_token_message($what, other, Self::TAGS);
                        cx.error(tag_value.span, msg);
                        None
                    }
                }
            }
        }

        impl $crate::read::ToJson for $name {
            fn to_json(&self) -> $crate::jsonc::Value {
                let mut members = Vec::new();
                match self {
                    $(
                        $name::$variant(b) => {
                            members.push($crate::read::member(
                                $tag,
                                $crate::jsonc::Value::synthetic($crate::jsonc::Kind::String($key.to_string())),
                            ));
                            $crate::read::Block::write_fields(b, &mut members);
                        }
                    )*
                    $( $name::$unknown(v) => return v.clone(), )?
                }
                $crate::jsonc::Value::synthetic($crate::jsonc::Kind::Object(members))
            }
        }
    };
}

/// Declares a closed set of string tokens.
///
/// ```ignore
/// tokens! {
///     /// A collider's state.
///     pub enum ColliderState as "collider state" {
///         #[default] Solid = "solid",
///         Off = "off",
///         Trigger = "trigger",
///     }
/// }
/// ```
///
/// An unknown token is an error naming it and listing the ones that would have worked.
#[macro_export]
macro_rules! tokens {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident as $what:literal {
            $( $(#[$vmeta:meta])* $variant:ident = $tok:literal ),* $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
        $vis enum $name {
            $( $(#[$vmeta])* $variant, )*
        }

        impl $name {
            /// Every token, in declaration order.
            pub const TOKENS: &'static [&'static str] = &[$($tok),*];

            /// The token as written.
            pub fn as_str(self) -> &'static str {
                match self { $( $name::$variant => $tok, )* }
            }

            /// Parses a token.
            pub fn parse(s: &str) -> Option<Self> {
                match s { $( $tok => Some($name::$variant), )* _ => None }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl $crate::read::FromJson for $name {
            fn from_json(cx: &mut $crate::read::Cx, v: &$crate::jsonc::Value) -> Option<Self> {
                let Some(s) = v.as_str() else {
                    cx.expected(concat!("a string (", $what, ")"), v);
                    return None;
                };
                match Self::parse(s) {
                    Some(t) => Some(t),
                    None => {
                        let msg = $crate::read::unknown_token_message($what, s, Self::TOKENS);
                        cx.error(v.span, msg);
                        None
                    }
                }
            }
        }

        impl $crate::read::ToJson for $name {
            fn to_json(&self) -> $crate::jsonc::Value {
                $crate::jsonc::Value::synthetic($crate::jsonc::Kind::String(self.as_str().to_string()))
            }
        }
    };
}

/// Parses `text` as JSONC and reports a syntax error as a diagnostic.
pub fn parse_source(file: &SourceFile, diags: &mut Diagnostics) -> Option<Value> {
    match crate::jsonc::parse(&file.text) {
        Ok(v) => Some(v),
        Err(e) => {
            diags.error(file, Span::new(e.offset, e.offset), "", e.message);
            None
        }
    }
}

#[cfg(test)]
#[allow(dead_code)]
mod tests {
    use super::*;
    use crate::schema::common::Vec3;

    tokens! {
        /// A state.
        pub enum State as "collider state" {
            #[default]
            Solid = "solid",
            Off = "off",
        }
    }

    block! {
        /// A box shape.
        pub struct BoxShape = "box shape" {
            /// Center.
            opt center: Vec3 = "center",
            /// Half extents.
            req half_extents: Vec3 = "halfExtents",
        }
    }

    block! {
        /// A sphere shape.
        pub struct SphereShape = "sphere shape" {
            /// Radius.
            req radius: f64 = "radius",
        }
    }

    tagged! {
        /// A shape.
        pub enum Shape by "type" as "collider shape" {
            "box" => Box(BoxShape),
            "sphere" => Sphere(SphereShape),
        }
    }

    block! {
        /// A spawn point.
        pub struct Spawn = "dh.spawnPoint" {}
    }

    block! {
        /// A collider.
        pub struct Collider = "dh.collider" {
            /// State.
            opt state: State = "state",
            /// Shapes.
            list shapes: Shape = "shapes",
        }
    }

    tagged! {
        /// A component.
        pub enum Component by "$type" as "component" {
            "dh.collider" => Collider(Collider),
            "dh.spawnPoint" => SpawnPoint(Spawn),
        } unknown Unknown
    }

    fn read<T: FromJson>(text: &str, mode: Mode) -> (Option<T>, Diagnostics) {
        let file = SourceFile::new("t.json", text);
        let mut d = Diagnostics::new();
        let v = parse_source(&file, &mut d).unwrap();
        let r = {
            let mut cx = Cx::new(&file, &mut d, mode);
            T::from_json(&mut cx, &v)
        };
        (r, d)
    }

    #[test]
    fn reads_and_writes_back() {
        let text = r#"{"$type":"dh.collider","state":"off","shapes":[{"type":"box","halfExtents":[1,2,3]},{"type":"sphere","radius":0.5}]}"#;
        let (c, d) = read::<Component>(text, Mode::Build);
        assert!(d.items.is_empty(), "{d}");
        assert_eq!(c.unwrap().to_json().to_json(), text);
    }

    #[test]
    fn unknown_members_name_block_member_and_fields() {
        let (_, d) = read::<Vec<Component>>(
            "[\n{\"$type\":\"dh.collider\", \"shapes\": [{\"type\":\"box\",\"halfExtents\":[1,1,1],\"radius\":2}], \"fov\": 1},\n{\"$type\":\"dh.spawnPoint\",\"fov\":60}]",
            Mode::Build,
        );
        let msgs: Vec<String> = d.items.iter().map(|d| d.to_string()).collect();
        assert_eq!(
            msgs,
            vec![
                "t.json:2:72: error: [0].shapes[0]: unknown member 'radius' in box shape; the fields of box shape are: center, halfExtents",
                "t.json:2:86: error: [0]: unknown member 'fov' in dh.collider; the fields of dh.collider are: state, shapes",
                "t.json:3:26: error: [1]: unknown member 'fov' in dh.spawnPoint: dh.spawnPoint holds no fields at all",
            ]
        );
    }

    #[test]
    fn unknown_tags_and_tokens() {
        let (_, d) = read::<Component>(r#"{"$type":"dh.nope"}"#, Mode::Build);
        assert_eq!(
            d.items[0].message,
            "'dh.nope' is not a valid component; expected one of: dh.collider, dh.spawnPoint"
        );
        let (c, d) = read::<Component>(r#"{"$type":"dh.nope","x":1}"#, Mode::Load);
        assert!(d.items.is_empty());
        assert_eq!(
            c.unwrap().to_json().to_json(),
            r#"{"$type":"dh.nope","x":1}"#
        );
        let (_, d) = read::<Collider>(r#"{"state":"solidd"}"#, Mode::Build);
        assert_eq!(
            d.items[0].message,
            "'solidd' is not a valid collider state; expected one of: solid, off; did you mean `solid`?"
        );
        let (_, d) = read::<BoxShape>(r#"{"center":[1,2]}"#, Mode::Build);
        assert_eq!(
            d.items[0].message,
            "expected exactly three numbers, found 2 items"
        );
        assert_eq!(
            d.items[1].message,
            "box shape is missing its required member 'halfExtents'"
        );
    }
}
