// A live game's moves as they come: the list #moves holds the steps shown in the HTML
// (data-shown) and names its stream (data-events); each "steps" event appends the new ones'
// lines, "end" links the recorded game. Text only (textContent): nothing sent is parsed as HTML.
(() => {
  const moves = document.getElementById("moves");
  if (!window.EventSource || !moves || !moves.dataset.events) return;
  const shown = Number(moves.dataset.shown || 0);
  const source = new EventSource(moves.dataset.events);
  source.addEventListener("steps", (event) => {
    for (const step of JSON.parse(event.data)) {
      if (step.i < shown) continue;
      for (const line of step.lines) {
        const li = document.createElement("li");
        li.textContent = line;
        moves.append(li);
      }
      document.body.dataset.liveSteps = String(step.i + 1);
    }
  });
  source.addEventListener("end", (event) => {
    source.close();
    const game = JSON.parse(event.data).game;
    const state = document.getElementById("state");
    state.replaceChildren();
    if (game === null) { state.textContent = "Game stopped before its end."; return; }
    const link = document.createElement("a");
    link.href = "/games/" + game;
    link.textContent = "the whole game";
    state.append("Game over: ", link, ".");
    document.body.dataset.liveEnded = "1";
  });
})();
