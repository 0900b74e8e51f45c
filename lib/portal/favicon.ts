/**
 * The portal's icon: a small SVG (a page with a bar chart), kept in code rather than as a static
 * file so that the Lambda bundle needs nothing more copied. Served at `/portal/favicon.svg` and,
 * for browsers that ask the site's root, at `/favicon.ico`.
 */
export const FAVICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">
<rect x="4" y="2" width="24" height="28" rx="3" fill="#0a58ca"/>
<rect x="9" y="17" width="4" height="8" fill="#fff"/>
<rect x="15" y="12" width="4" height="13" fill="#fff"/>
<rect x="21" y="7" width="4" height="18" fill="#fff"/>
</svg>
`;

/** The headers the icon is served with: an image, cached for a day. */
export const FAVICON_HEADERS = {
  'content-type': 'image/svg+xml',
  'cache-control': 'public, max-age=86400',
} as const;
