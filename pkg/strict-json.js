// Internal: JSON parsing for replies from a grantor, stricter than JSON.parse where JSON.parse is
// lenient in a way a hostile reply could use. JSON.parse keeps the last of two equal keys, so
// `{"granted":false,...,"granted":true}` would read as a grant to one parser and a denial to
// another; such a reply is refused instead.

/** Whether `text`, already known to be valid JSON, has an object with the same key twice. */
function hasDuplicateKeys(text) {
  // One entry per open container: the keys seen so far for an object, null for an array.
  const open = [];
  let expectKey = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i];
    if (c === '"') {
      let end = i + 1;
      while (text[end] !== '"') end += text[end] === "\\" ? 2 : 1;
      const keys = open.at(-1);
      if (expectKey && keys instanceof Set) {
        // Decoded, so that "a" and "\u0061" count as the same key.
        const key = JSON.parse(text.slice(i, end + 1));
        if (keys.has(key)) return true;
        keys.add(key);
        expectKey = false;
      }
      i = end;
    } else if (c === "{") {
      open.push(new Set());
      expectKey = true;
    } else if (c === "[") {
      open.push(null);
      expectKey = false;
    } else if (c === "}" || c === "]") {
      open.pop();
      expectKey = false;
    } else if (c === ",") {
      expectKey = open.at(-1) instanceof Set;
    }
  }
  return false;
}

/**
 * Parses a grantor's reply: JSON.parse, refusing duplicate keys. Throws a SyntaxError for
 * anything it refuses, as JSON.parse does.
 */
export function parseReplyJson(text) {
  const value = JSON.parse(text);
  if (hasDuplicateKeys(text)) throw new SyntaxError("the reply has an object with a duplicate key");
  return value;
}
