/** Debian's Chromium, which the console tests drive (never a downloaded browser). */
export const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export const chromiumHint = 'apt-get install -y chromium (or set CHROMIUM_PATH to a Chromium binary)';
