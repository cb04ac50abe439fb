// authbench view: a filter's select submits its form when it changes.
document.documentElement.classList.add("js");
document.querySelectorAll("select.autosubmit").forEach(function (s) {
  s.addEventListener("change", function () { s.form.submit(); });
});
