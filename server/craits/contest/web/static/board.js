// The leaderboard in place: each "board" event of /board/events is the whole table, swapped in
// for the one shown (feed.py); without this script the page refreshes itself (<noscript>).
(() => {
  if (!window.EventSource) return;
  const source = new EventSource("/board/events");
  source.addEventListener("board", (event) => {
    const fresh = new DOMParser().parseFromString(event.data, "text/html")
      .getElementById("board");
    const shown = document.getElementById("board");
    if (fresh && shown) shown.replaceWith(fresh);
    document.body.dataset.boardUpdates = String(Number(document.body.dataset.boardUpdates || 0) + 1);
  });
})();
