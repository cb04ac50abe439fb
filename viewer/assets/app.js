// authbench view: a filter's select submits its form when it changes.
document.querySelectorAll("select.autosubmit").forEach(function (s) {
  s.addEventListener("change", function () { s.form.submit(); });
});
