document.querySelectorAll("form").forEach((f) => f.addEventListener("submit", () => f.classList.add("busy")));
