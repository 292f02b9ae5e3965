/** Keep the Network domain of the Worker's inspector on `port` off until the returned function is called. */
export function keepInspectorQuiet(port: number | string, everyMs?: number): () => void;
