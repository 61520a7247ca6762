"""The continual stream's shared vocabulary: its tags and the gap every question keeps."""

from __future__ import annotations

__all__ = ["ASK_TAGS", "MIN_GAP", "PHASES", "WRITE_TAG"]

# The roles a step can play (the answer key: tags never reach a backend). Writes carry one
# per item: seed (a fact), interfere (noise), update (a new value, a distractor's new value,
# a history item), corroborate, gate.
PHASES = ("seed", "probe", "interfere", "consolidate", "reprobe", "update", "corroborate", "gate",
          "reinforce")
# What a question can be: its fact's first asks (probe), asks after the interference
# (reprobe), about a changed fact now (update) and before (past), about an item outside the
# facts (aside), about a fact stated twice (corroborate), after a forget (forgotten, kept),
# the reinforcement's asks (reinforce) and the later checks of the reinforced facts and
# their matched controls (reinforced, control).
ASK_TAGS = ("probe", "reprobe", "update", "past", "aside", "corroborate", "forgotten", "kept",
            "reinforce", "reinforced", "control")
# The call tag of a write that may mix kinds (its items carry their own tags).
WRITE_TAG = "write"
MIN_GAP = 8  # writes between an answer's write and its question, at the least
