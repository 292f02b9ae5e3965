/** Text modules (wrangler's default rule for *.txt; the Workers test pool honours it too): the built explorer assets. */
declare module "*.txt" {
  const text: string;
  export default text;
}
