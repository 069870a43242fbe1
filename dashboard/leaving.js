// Mounted in the sidebar of every page, before the pages' own elements: it notes when the
// reader asks for another page of the app, by a link (the sidebar's pages, or a page link).
// Until the server starts the new page's run, Streamlit still sends each state value an
// element of the old page sets (a board drawn by what is left of that page's run, say) as one
// of the old page, and the run that answers it comes after the new page's and leaves it
// blank. The board (board.js) therefore tells nothing while window.spadesReplayLeaving holds
// the address of the page being left.
export default function () {
  if (window.spadesReplayLeaving !== undefined) return;
  window.spadesReplayLeaving = null;
  document.addEventListener(
    "click",
    (event) => {
      const link = event.target instanceof Element ? event.target.closest("a[href]") : null;
      if (link === null) return;
      const target = new URL(link.href, window.location.href);
      if (target.origin !== window.location.origin || target.pathname === window.location.pathname) return;
      window.spadesReplayLeaving = window.location.pathname;
    },
    true,
  );
}
