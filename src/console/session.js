// What the console keeps between pages: the operator's token, and which page is current.

const tokenKey = 'warden.token';

export const token = () => sessionStorage.getItem(tokenKey);
export const signIn = (value) => sessionStorage.setItem(tokenKey, value);
export const signOut = () => sessionStorage.removeItem(tokenKey);

/**
 * The page now shown: `generation` is bumped on every navigation, so a page that finished loading
 * after the person left never draws or starts a stream; `stop` ends the current page's live stream.
 */
const current = { generation: 0, stop: null };

/** Starts a new page: ends the previous one's stream. Returns the new page's generation. */
export function nextPage() {
  current.generation++;
  if (current.stop) current.stop();
  current.stop = null;
  return current.generation;
}

export const isCurrent = (mine) => mine === current.generation;

/** Registers the function that ends the current page's live stream. */
export function onLeave(stop) {
  current.stop = stop;
}
