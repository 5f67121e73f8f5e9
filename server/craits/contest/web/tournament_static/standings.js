// The standings in place: each "standings" event of /standings/events is the standings' and
// the latest games' panels, whole, swapped in for those shown; without this script the page
// refreshes itself while the tournament runs (<noscript>).
(() => {
  if (!window.EventSource) return;
  const source = new EventSource("/standings/events");
  source.addEventListener("standings", (event) => {
    const fresh = new DOMParser().parseFromString(
      '<div id="standings-live">' + event.data + "</div>", "text/html")
      .getElementById("standings-live");
    const shown = document.getElementById("standings-live");
    if (fresh && shown) shown.replaceWith(fresh);
    document.body.dataset.standingsUpdates =
      String(Number(document.body.dataset.standingsUpdates || 0) + 1);
  });
})();
