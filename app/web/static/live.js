// Live progress of a crew run: follow the run's server-sent events, update the page, reload it at the end.
// Progressive enhancement only: without this script the run page refreshes itself while the run goes.
"use strict";
(function () {
  const box = document.querySelector("[data-run-events]");
  if (!box || !window.EventSource) return;
  const source = new EventSource(box.getAttribute("data-run-events"));

  function taskItem(id) {
    return Array.from(document.querySelectorAll("[data-task]")).find((item) => item.getAttribute("data-task") === id);
  }
  function setStatus(element, status) {
    if (!element || !status) return;
    element.textContent = status;
    element.className = element.className.replace(/\bstatus-\S+/g, "").trim() + " status-" + status;
  }
  function setText(selector, text, root) {
    const element = (root || document).querySelector(selector);
    if (element) element.textContent = text;
  }

  function onEvent(message) {
    const event = JSON.parse(message.data);
    if (typeof event.tokens === "number") setText("[data-run-tokens]", String(event.tokens));
    const item = event.task ? taskItem(event.task) : null;
    if (event.type === "task" && item) setStatus(item.querySelector("[data-task-status]"), event.status);
    if (event.type === "tokens" && item) {
      setStatus(item.querySelector("[data-task-status]"), "running");
      setText("[data-task-tokens]", event.task_tokens + " tokens", item);
    }
    if (event.type === "abort_requested") setText("[data-live-note]", "Abort requested: the run stops at its next step.");
    if (event.type === "run" && event.status !== "running") {
      source.close();
      window.location.reload();
    }
  }

  ["run", "task", "tokens", "abort_requested", "progress"].forEach((type) => source.addEventListener(type, onEvent));
})();
