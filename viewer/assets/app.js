// authbench view: a filter's select submits its form when it changes, and
// a filter form leaves its unset fields out of the query.
document.documentElement.classList.add("js");
document.querySelectorAll("form.filters").forEach(function (f) {
  f.addEventListener("submit", function () {
    f.querySelectorAll("select").forEach(function (s) { if (!s.value) s.disabled = true; });
  });
});
document.querySelectorAll("select.autosubmit").forEach(function (s) {
  s.addEventListener("change", function () { s.form.requestSubmit(); });
});
window.addEventListener("pageshow", function () {
  document.querySelectorAll("form.filters select").forEach(function (s) { s.disabled = false; });
});
