"""The CPU scheduling rules, written once for the default schedule and the search space.

Each rule transforms a `Schedule` and takes every choice it makes from a `Choices`
(choices.py): the default schedule (`ir.schedule.default`) answers with the value each
rule prefers, the search space (`tuner.space`) replays or draws them. In data-flow order:

    inline.py              inline elementwise stages (padding, shared exp: a decision)
    multi_level_tiling.py  tile a compute-heavy reduction (Ansor's "SSRSRS") - the search
    rows.py                compute softmax's and layer_norm's statistics per output row
    generic.py             vectorize, rfactor and parallelize every other root stage
    analysis.py, loops.py, tiles.py   what the rules read and the loop moves they share

The default register-tiles matrix products and convolutions by hand (`ir.schedule.default`)
instead of through multi_level_tiling.py; the search's point nearest those tilings is
rebuilt from their choices in `tuner.space.prior`.
"""
