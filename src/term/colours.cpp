#include "term/colours.hpp"

namespace blaude::term {

namespace {

// The next `;`-separated field of `s`, consumed.
std::string_view next_field(std::string_view& s) {
  size_t k = s.find(';');
  std::string_view f = s.substr(0, k);
  s = k == std::string_view::npos ? std::string_view() : s.substr(k + 1);
  return f;
}

// A decimal index, or -1.
long index_of(std::string_view f) {
  if (f.empty() || f.size() > 5) return -1;
  long v = 0;
  for (char c : f) {
    if (c < '0' || c > '9') return -1;
    v = v * 10 + (c - '0');
  }
  return v;
}

void osc(std::string& out, std::string_view body) {
  out += "\x1b]";
  out += body;
  out += "\x1b\\";
}

}  // namespace

bool Colours::wanted(uint32_t num) {
  return num == 4 || num == 104 || (num >= 10 && num <= 19) || (num >= 110 && num <= 119);
}

void Colours::Spec::set(std::string_view s) {
  kept = s.size() <= kSpecMax;
  len = kept ? static_cast<uint8_t>(s.size()) : 0;
  if (kept) s.copy(text.data(), s.size());
}

void Colours::set_entry(uint32_t index, std::string_view spec) {
  if (index >= palette_.size()) {
    palette_all_ = true;
    return;
  }
  palette_.set(index);
  for (size_t i = 0; i < n_entries_; ++i) {
    if (entries_[i].index == index) {
      entries_[i].spec.set(spec);
      return;
    }
  }
  if (n_entries_ < kKept) {
    entries_[n_entries_].index = static_cast<uint16_t>(index);
    entries_[n_entries_++].spec.set(spec);
  }
}

void Colours::reset_entry(uint32_t index) {
  if (index < palette_.size()) palette_.reset(index);
  for (size_t i = 0; i < n_entries_; ++i) {
    if (entries_[i].index == index) {
      entries_[i] = entries_[--n_entries_];
      entries_[n_entries_] = Entry{};
      return;
    }
  }
}

void Colours::note(uint32_t num, std::string_view payload, bool cut) {
  // A payload cut short names colours nobody read: all it could have set count as set, with no
  // colour kept (what was kept of it depends on where the reads were cut).
  if (cut && num == 4) {
    palette_all_ = true;
    return;
  }
  if (cut && num >= 10 && num <= 19) {
    for (uint32_t n = num; n <= 19; ++n) {
      dynamic_ = static_cast<uint16_t>(dynamic_ | (1u << (n - 10)));
      dyn_spec_[n - 10] = Spec{};
    }
    return;
  }
  if (cut && num == 104) return;  // which entries it reset is not known: they stay set
  if (num == 4) {
    while (!payload.empty()) {  // pairs of index ; colour, where `?` asks instead of sets
      long index = index_of(next_field(payload));
      std::string_view spec = next_field(payload);
      if (spec == "?") continue;
      if (index < 0) palette_all_ = true;
      else set_entry(static_cast<uint32_t>(index), spec);
    }
  } else if (num >= 10 && num <= 19) {
    // Each field sets the next colour: OSC 10 ; fg ; bg ; cursor.
    for (uint32_t n = num; n <= 19 && !payload.empty(); ++n) {
      std::string_view spec = next_field(payload);
      if (spec == "?") continue;
      dynamic_ = static_cast<uint16_t>(dynamic_ | (1u << (n - 10)));
      dyn_spec_[n - 10].set(spec);
    }
  } else if (num == 104) {
    if (payload.empty()) {
      palette_.reset();
      palette_all_ = false;
      entries_ = {};
      n_entries_ = 0;
    }
    while (!payload.empty()) {
      long index = index_of(next_field(payload));
      if (index >= 0) reset_entry(static_cast<uint32_t>(index));
    }
  } else if (num >= 110 && num <= 119) {
    dynamic_ = static_cast<uint16_t>(dynamic_ & ~(1u << (num - 110)));
    dyn_spec_[num - 110] = Spec{};
  }
}

void Colours::append_reset(std::string& out) const {
  if (palette_all_) {
    osc(out, "104");
  } else if (palette_.any()) {
    std::string body = "104";
    for (size_t i = 0; i < palette_.size(); ++i)
      if (palette_.test(i)) body += ';' + std::to_string(i);
    osc(out, body);
  }
  for (uint32_t n = 0; n < 10; ++n)
    if (dynamic_ & (1u << n)) osc(out, std::to_string(110 + n));
}

void Colours::append_set(std::string& out) const {
  for (size_t i = 0; i < n_entries_; ++i) {
    if (!entries_[i].spec.kept) continue;
    osc(out, "4;" + std::to_string(entries_[i].index) + ';' + std::string(entries_[i].spec.view()));
  }
  for (uint32_t n = 0; n < 10; ++n)
    if ((dynamic_ & (1u << n)) && dyn_spec_[n].kept)
      osc(out, std::to_string(10 + n) + ';' + std::string(dyn_spec_[n].view()));
}

bool Colours::operator==(const Colours& o) const {
  if (palette_ != o.palette_ || palette_all_ != o.palette_all_ || dynamic_ != o.dynamic_ ||
      dyn_spec_ != o.dyn_spec_ || n_entries_ != o.n_entries_)
    return false;
  for (size_t i = 0; i < n_entries_; ++i)
    if (entries_[i].index != o.entries_[i].index || !(entries_[i].spec == o.entries_[i].spec))
      return false;
  return true;
}

}  // namespace blaude::term
