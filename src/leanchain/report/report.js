(() => {
  "use strict";
  const setAll = (open) => {
    for (const item of document.querySelectorAll("details")) item.open = open;
  };
  document.getElementById("expand-all").addEventListener("click", () => setAll(true));
  document.getElementById("collapse-all").addEventListener("click", () => setAll(false));
  const openTarget = () => {
    const id = decodeURIComponent(location.hash.slice(1));
    const target = id ? document.getElementById(id) : null;
    if (target && target.tagName === "DETAILS") target.open = true;
  };
  window.addEventListener("hashchange", openTarget);
  openTarget();
})();
