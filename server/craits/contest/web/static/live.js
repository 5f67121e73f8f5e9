// A live game's moves as they come: the list #moves holds the steps shown in the HTML
// (data-shown) and names its stream (data-events); each "steps" event appends the new ones'
// lines, "end" links the recorded game. On the TV (data-tv) the stream goes on from game to
// game: each "game" event starts a new list under the new seats' names, and an "end" leaves
// the stream open for the next. Text only (textContent): nothing sent is parsed as HTML.
(() => {
  const moves = document.getElementById("moves");
  if (!window.EventSource || !moves || !moves.dataset.events) return;
  const tv = moves.dataset.tv === "1";
  let shown = Number(moves.dataset.shown || 0);
  const state = document.getElementById("state");
  const source = new EventSource(moves.dataset.events);
  source.addEventListener("game", (event) => {
    const game = JSON.parse(event.data);
    document.getElementById("title").textContent = "TV: " + game.seats.join(", ");
    state.textContent = "Being played: public moves only. The newest game follows when it ends.";
    moves.replaceChildren();
    shown = 0;  // the stream sends each game from its first step
    document.body.dataset.tvGames = String(Number(document.body.dataset.tvGames || 0) + 1);
    delete document.body.dataset.liveEnded;
    delete document.body.dataset.liveSteps;
  });
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
    if (!tv) source.close();
    const game = JSON.parse(event.data).game;
    state.replaceChildren();
    if (game === null) { state.textContent = "Game stopped before its end."; return; }
    const link = document.createElement("a");
    link.href = "/games/" + game;
    link.textContent = "the whole game";
    state.append("Game over: ", link, tv ? ". The next game follows." : ".");
    document.body.dataset.liveEnded = "1";
  });
})();
