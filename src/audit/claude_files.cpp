#include "audit/claude_files.hpp"

#include <algorithm>
#include <set>

#include <nlohmann/json.hpp>

#include "common/claude_keys.hpp"
#include "common/strict_json.hpp"

namespace blaude::audit {

namespace {

using Json = nlohmann::ordered_json;

// As strict as claude's JSON.parse, and stricter where a reader could see another document
// (duplicate keys, lone surrogates, depth): what does not pass is hostile, never read leniently.
Json parse(std::string_view text) {
  auto j = strict_json_parse(text);
  return j ? std::move(*j) : Json(Json::value_t::discarded);
}

// null, "", {} and [] run nothing and switch nothing on: the same as no key. claude writes such
// defaults itself (a new projects.<dir> entry has "mcpServers": {}, "allowedTools": [], ...),
// which must not read as a change. So does false, for a key the table knows (its false is the
// default: "hasTrustDialogAccepted": false); for a key it does not, false may switch a guard off.
bool inert(const Json& v, bool known) {
  return v.is_null() || (known && v.is_boolean() && !v.get<bool>()) ||
         (v.is_string() && v.get_ref<const std::string&>().empty()) || ((v.is_object() || v.is_array()) && v.empty());
}

ClaudeKeyScope top_scope(ClaudeFile kind) {
  return kind == ClaudeFile::Settings ? ClaudeKeyScope::Settings : ClaudeKeyScope::State;
}

// Calls f(path, value) for every key of doc that is not known to be inert (the allowlist of
// common/claude_keys.hpp), with a value that is not inert: in ~/.claude.json at the top and in
// each projects.<path> entry (where something other than an object stands for an entry, or for
// "projects" itself, that is the key).
template <class F>
void each_key(ClaudeFile kind, const Json& doc, F f) {
  auto visit = [&](ClaudeKeyScope scope, const Json& obj, KeyPath at) {
    for (const auto& [k, v] : obj.items()) {
      if (kind == ClaudeFile::State && at.empty() && k == "projects") continue;
      const auto cls = claude_key_class(scope, k);
      if (cls == ClaudeKeyClass::Inert || inert(v, cls.has_value())) continue;
      KeyPath p = at;
      p.push_back(k);
      f(p, v);
    }
  };
  visit(top_scope(kind), doc, {});
  if (kind != ClaudeFile::State) return;
  auto projects = doc.find("projects");
  if (projects == doc.end() || inert(*projects, true)) return;
  if (!projects->is_object()) return f(KeyPath{"projects"}, *projects);
  for (const auto& [dir, entry] : projects->items()) {
    if (entry.is_object()) {
      visit(ClaudeKeyScope::ProjectState, entry, {"projects", dir});
    } else if (!inert(entry, true)) {
      f(KeyPath{"projects", dir}, entry);
    }
  }
}

std::string dump(const Json& j) {
  // Invalid UTF-8 inside a string must not throw: replaced, for comparing only.
  return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

}  // namespace

std::string key_name(const KeyPath& k) {
  std::string s;
  for (const auto& p : k) s += (s.empty() ? "" : ".") + p;
  return s;
}

ClaudeProjection project_claude(ClaudeFile kind, const std::optional<std::string>& text) {
  ClaudeProjection p;
  if (!text) return p;
  p.exists = true;
  if (kind == ClaudeFile::Script) {  // claude runs it as it is: all of it is code
    p.parsed = true;
    p.keys.emplace(KeyPath{"content"}, *text);
    return p;
  }
  // Only the watched keys are kept while parsing: ~/.claude.json holds every project's history
  // (hundreds of KB), and building all of it twice per session was 3x the git walk's cost.
  std::string top;  // the current key of the top-level object
  auto keep = [&](int depth, Json::parse_event_t ev, Json& parsed) {
    if (ev != Json::parse_event_t::key) return true;
    const auto& k = parsed.get_ref<const std::string&>();
    if (depth == 1) {
      top = k;
      return (kind == ClaudeFile::State && k == "projects") || !claude_key_inert(top_scope(kind), k);
    }
    if (depth == 3 && kind == ClaudeFile::State && top == "projects")
      return !claude_key_inert(ClaudeKeyScope::ProjectState, k);
    return true;
  };
  // The strict check first: nlohmann never sees text deeper than the bound or with a key twice.
  p.error = strict_json_error(*text);
  if (!p.error.empty()) return p;
  Json doc = Json::parse(*text, keep, /*allow_exceptions=*/false, /*ignore_comments=*/false);
  if (doc.is_discarded() || !doc.is_object()) {
    p.error = "not a JSON object";
    return p;
  }
  p.parsed = true;
  each_key(kind, doc, [&](const KeyPath& k, const Json& v) { p.keys.emplace(k, dump(v)); });
  return p;
}

std::vector<std::string> claude_changes(const ClaudeProjection& before, const ClaudeProjection& after) {
  std::vector<std::string> out;
  if (!after.exists) return out;  // gone: nothing of it runs
  if (!after.parsed) {
    // What blaude cannot read as strictly as claude does is hostile, new or not: a reader that
    // differs from ours (a later claude, another tool) may run what we did not see. It is moved
    // aside, and the start's text (if any) goes back.
    out.push_back(std::string(before.parsed ? "is not valid JSON any more (it was at the start): "
                                            : "is not strict JSON, so blaude cannot check it: ") +
                  after.error);
    return out;
  }
  auto shown = [](const std::string& v) { return v.size() > 200 ? v.substr(0, 200) + "..." : v; };
  for (const auto& [k, v] : after.keys) {
    auto it = before.keys.find(k);
    if (it == before.keys.end()) {
      out.push_back(key_name(k) + ": added " + shown(v));
    } else if (it->second != v) {
      out.push_back(key_name(k) + ": changed to " + shown(v));
    }
  }
  for (const auto& [k, v] : before.keys)
    if (!after.keys.count(k)) out.push_back(key_name(k) + ": removed");
  return out;
}

std::optional<std::string> restore_claude_keys(ClaudeFile kind, const ClaudeProjection& before,
                                               std::string_view after_text) {
  Json doc = parse(after_text);
  if (doc.is_discarded() || !doc.is_object()) return std::nullopt;
  // Set back every code-bearing key whose value differs from the start's: dropped when the start
  // had none, else the start's value. The others (same value, or inert on both sides) stay as
  // the agent's text has them.
  std::vector<KeyPath> present;  // differ from the start: set back below
  std::set<KeyPath> seen;        // every code-bearing key the agent's text has
  each_key(kind, doc, [&](const KeyPath& k, const Json& v) {
    seen.insert(k);
    auto b = before.keys.find(k);
    if (b == before.keys.end() || b->second != dump(v)) present.push_back(k);
  });
  // The object holding key k (projects.<dir>), made one where the agent put something else there
  // (`"projects": 1` would otherwise lose the user's servers: its aside copy does not hold them).
  auto slot = [&](const KeyPath& k) -> Json* {
    Json* cur = &doc;
    for (size_t i = 0; i + 1 < k.size(); ++i) {
      auto it = cur->find(k[i]);
      if (it == cur->end()) it = cur->emplace(k[i], Json::object()).first;
      if (!it->is_object()) *it = Json::object();
      cur = &*it;
    }
    return cur;
  };
  for (const auto& k : present) {
    auto b = before.keys.find(k);
    Json* obj = slot(k);
    if (b == before.keys.end()) {
      obj->erase(k.back());
    } else {
      (*obj)[k.back()] = Json::parse(b->second, nullptr, false);  // in place: the key keeps its order
    }
  }
  for (const auto& [k, v] : before.keys)
    if (!seen.count(k)) (*slot(k))[k.back()] = Json::parse(v, nullptr, false);  // the agent removed it
  return doc.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

std::optional<std::string> claude_clean_text(ClaudeFile kind, const std::optional<std::string>& before_text,
                                             std::string_view after_text, std::string* how) {
  if (kind == ClaudeFile::Script) {
    if (how) *how = before_text ? "the script as it was at the start" : "";
    return before_text;
  }
  const ClaudeProjection before = project_claude(kind, before_text);
  if (auto r = restore_claude_keys(kind, before, after_text)) {
    if (how) *how = "its code-bearing keys set back to their values at the start, every other change kept";
    return r;
  }
  if (before_text) {
    if (how) *how = "the whole file as it was at the start (the agent's copy does not parse)";
    return *before_text;
  }
  if (how) *how = "";
  return std::nullopt;
}

}  // namespace blaude::audit
