// The colours the child changed in the user's terminal: palette entries (OSC 4) and the dynamic
// colours (OSC 10-19: foreground, background, cursor, ...). undo() resets those and only those
// (OSC 104 with their indices, OSC 110-119), and reapply() sets them again on fg. Only those: a
// shell theme (base16, pywal) sets the palette with the same sequences, and a blanket OSC 104
// after every session would throw the user's theme away. A reset goes back to the terminal's
// configured colour, which is the theme's only when the theme is the terminal's configuration:
// the value before the child changed it cannot be known without asking the terminal for it.
#pragma once
#include <array>
#include <bitset>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace blaude::term {

class Colours {
public:
  static constexpr size_t kSpecMax = 64;  // a longer colour is reset at the end, not re-sent on fg
  static constexpr size_t kKept = 32;     // palette entries whose colour is kept for reapply()

  // The OSC numbers this class reads: 4, 10-19, 104, 110-119.
  static bool wanted(uint32_t num);
  // An OSC `num` with its payload (after the first ';'). `cut`: the payload was too long to be
  // kept whole, so every colour it may name counts as changed.
  void note(uint32_t num, std::string_view payload, bool cut = false);

  bool changed() const { return palette_all_ || palette_.any() || dynamic_ != 0; }
  // OSC 104 (with the indices, or none for all of them) and OSC 110-119 for what was changed.
  void append_reset(std::string& out) const;
  // The kept colours again (OSC 4 and OSC 10-19).
  void append_set(std::string& out) const;
  bool operator==(const Colours& o) const;

private:
  struct Spec {
    uint8_t len = 0;
    bool kept = false;  // false: too long, or not known (a payload cut short)
    std::array<char, kSpecMax> text{};
    void set(std::string_view s);
    std::string_view view() const { return {text.data(), len}; }
    bool operator==(const Spec& o) const { return kept == o.kept && view() == o.view(); }
  };
  struct Entry {
    uint16_t index = 0;
    Spec spec;
  };
  void set_entry(uint32_t index, std::string_view spec);
  void reset_entry(uint32_t index);

  std::bitset<256> palette_;  // entries the child set
  bool palette_all_ = false;  // an entry past 255 or a payload cut short: OSC 104 resets all
  uint16_t dynamic_ = 0;      // bit n-10: OSC n (10-19) set
  std::array<Spec, 10> dyn_spec_{};
  std::array<Entry, kKept> entries_{};  // the colours of set palette entries, as far as kept
  uint8_t n_entries_ = 0;
};

}  // namespace blaude::term
