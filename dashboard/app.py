"""The dashboard's entry script, run by Streamlit: ``spades-replay dashboard [PATH...]`` or
``streamlit run dashboard/app.py [-- PATH...]``, or on a store: ``-- --store DIR``.

It builds the frame: page config, the watcher of page changes (:mod:`.leaving`), the shared
sidebar (which loads the data, and draws its widgets once the page is drawn), and the
navigation between the pages; each page is a module of its own. The address is read before
the page runs and written after it (:mod:`.urlstate`).
"""

import sys

import streamlit as st
from spades_replay.dashboard import (
    charts,
    leaderboard,
    leaving,
    player,
    replay,
    sidebar,
    stats,
    urlstate,
    validate,
    whatif,
)
from spades_replay.dashboard.data import data_paths, store_path

st.set_page_config(page_title="spades-replay", page_icon="♠", layout="wide")
urlstate.arrive()
leaving.watch()
store = store_path(sys.argv, __file__)
if store is not None:
    shared = sidebar.render_store(store)
    stats.prefetch(shared.context)
    whatif.prefetch(shared.context)
else:
    shared = sidebar.render(data_paths(sys.argv, __file__))
pages = st.navigation(
    [
        replay.page(),
        charts.page(),
        leaderboard.page(),
        player.page(),
        stats.page(),
        whatif.page(),
        validate.page(),
    ]
)
try:
    pages.run()
except Exception:
    # a run that ends without drawing a widget lets its value go: a page that fails keeps
    # the uploads and the filters
    shared.draw()
    raise
shared.draw()
urlstate.publish()
