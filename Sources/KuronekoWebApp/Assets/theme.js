// Runs before the page is drawn, so a chosen theme never flashes the other one first.
(function () {
  try {
    var theme = localStorage.getItem("kuroneko.theme");
    if (theme === "light" || theme === "dark") document.documentElement.dataset.theme = theme;
  } catch (e) { /* storage unavailable: follow the system */ }
})();
