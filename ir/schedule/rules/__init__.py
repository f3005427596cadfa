"""The CPU scheduling rules, written once for the default schedule and the search space.

Each rule transforms a `Schedule` and takes every choice it makes from a `Choices`
(choices.py): the default schedule (`ir.schedule.default`) answers with the value each
rule prefers, the search space (`tuner.space`) replays or draws them, so the default is
the space's point of preferred choices. In data-flow order (sketch.py runs them):

    inline.py              inline elementwise stages (padding, shared exp: a decision)
    register_tiles.py      register-tile an output's own matrix product or conv (the
                           default's sketch; its preferred sizes in register_tile_sizes.py)
    multi_level_tiling.py  or multi-level tile a compute-heavy stage (Ansor's "SSRSRS")
    rows.py                compute softmax's and layer_norm's statistics per output row
    generic.py             vectorize, rfactor and parallelize every other root stage
    analysis.py, loops.py, tiles.py   what the rules read and the loop moves they share
"""
