"""The Streamlit dashboard of spades-replay (installed as ``spades_replay.dashboard``).

Run it with ``spades-replay dashboard [PATH]`` or ``streamlit run dashboard/app.py``.
"""
