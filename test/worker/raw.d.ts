/** Vite's ?raw imports: test fixtures read as text (bundled into the test, never fetched). */
declare module "*?raw" {
  const text: string;
  export default text;
}
