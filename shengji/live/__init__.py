"""A person plays a seat in the browser against bots (`shengji play`, sj.play_in_browser):
the game (shengji.live.game) and its local server and page (shengji.live.server)."""
