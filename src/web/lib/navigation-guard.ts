import { createPath, type HistoryRouterProps, NavigationType, type To, UNSAFE_createBrowserHistory } from 'react-router';

/**
 * The app's browser history, through which every move passes: a link, a button that navigates, a redirect, and the
 * browser's own back and forward buttons. A screen with unsaved work holds moves away from it (`holdNavigation`) until
 * the user answers. The data router's `useBlocker` does the same, but that router would put about 19 KB (gzipped) of
 * loader and action machinery the app does not use on every page, the login page included.
 */
type History = HistoryRouterProps['history'];
type Update = Parameters<Parameters<History['listen']>[0]>[0];

/** Asked before a move away: true leaves, false stays; a promise while the user decides. */
export type LeaveCheck = () => boolean | Promise<boolean>;

const browser = UNSAFE_createBrowserHistory({ v5Compat: true });
let hold: LeaveCheck | null = null;
const pathListeners = new Set<() => void>();

/**
 * Runs `listener` whenever the app moves to another path, at once: before the router draws the next screen (it does
 * so in a transition, later). A map stops drawing here rather than when its screen is finally taken away.
 */
export function onPathChange(listener: () => void): () => void {
  pathListeners.add(listener);
  return () => {
    pathListeners.delete(listener);
  };
}

/**
 * Holds every move to another page (another path or query; a jump within the page passes) until `check` answers.
 * Returns the release. One hold at a time: the newest replaces an older one.
 */
export function holdNavigation(check: LeaveCheck): () => void {
  hold = check;
  return () => {
    if (hold === check) hold = null;
  };
}

/** Whether `to` stays on the page at `here` (the same path and query: a jump to a section, say). */
function samePage(to: To, here: { pathname: string; search: string }): boolean {
  const url = new URL(typeof to === 'string' ? to : createPath(to), window.location.href);
  return url.pathname === here.pathname && url.search === here.search;
}

/** Runs `move` at once, or once the hold's check says leave (then not again for this move). */
function guarded(to: To, move: () => void): void {
  const check = hold;
  const answer = !check || samePage(to, window.location) ? true : check();
  if (answer === true) move();
  else if (answer !== false) {
    void answer.then((leave) => {
      if (leave) move();
    });
  }
}

export const appHistory: History = {
  get action() {
    return browser.action;
  },
  get location() {
    return browser.location;
  },
  createHref: (to) => browser.createHref(to),
  createURL: (to) => browser.createURL(to),
  encodeLocation: (to) => browser.encodeLocation(to),
  go: (delta) => browser.go(delta),
  push: (to, state) => guarded(to, () => browser.push(to, state)),
  replace: (to, state) => guarded(to, () => browser.replace(to, state)),
  listen(listener) {
    /** The page the app shows (the browser's address runs ahead of it while a back or forward step is held). */
    let shown = browser.location;
    /** The step back to the shown page, taken while the question is open: the router sees neither step. */
    let undoing = false;
    /** The step let through after the user chose to leave: its popstate is not asked about again. */
    let leaving = false;
    const pass = (update: Update) => {
      const pathChanged = update.location.pathname !== shown.pathname;
      shown = update.location;
      if (pathChanged) for (const pathListener of [...pathListeners]) pathListener();
      listener(update);
    };
    return browser.listen((update: Update) => {
      if (update.action !== NavigationType.Pop) return pass(update);
      if (undoing) {
        undoing = false;
        return;
      }
      const check = hold;
      // A step without a known distance (a page the app did not number) cannot be taken back, and passes.
      if (leaving || !check || update.delta === null || update.delta === 0 || samePage(update.location, shown)) {
        leaving = false;
        return pass(update);
      }
      const answer = check();
      if (answer === true) return pass(update);
      // The browser has moved already: the held step is taken back at once, and taken again if the user leaves.
      const delta = update.delta;
      undoing = true;
      browser.go(-delta);
      if (answer === false) return;
      void answer.then((leave) => {
        if (!leave) return;
        leaving = true;
        browser.go(delta);
      });
    });
  },
};
