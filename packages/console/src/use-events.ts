import { useEffect, useRef, useState } from "preact/hooks";
import type { CloudEvent } from "@sdwan-connections/core/wire";
import { followEvents, type FollowState } from "./events.js";
import { useSession } from "./session.js";

/**
 * Follows the events `query` selects while the component is mounted (and the session lasts: signing out
 * unmounts the pages), handing each to the latest `onEvent`; `onReset` when the service asks to read the state
 * again. Returns where the stream stands.
 */
export const useEvents = (query: string, onEvent: (event: CloudEvent) => void, onReset: () => void): FollowState => {
  const session = useSession();
  const [state, setState] = useState<FollowState>("connecting");
  const handlers = useRef({ onEvent, onReset });
  handlers.current = { onEvent, onReset };
  useEffect(
    () =>
      followEvents(session.authorization, query, {
        onEvent: (event) => handlers.current.onEvent(event),
        onReset: () => handlers.current.onReset(),
        onState: setState,
      }),
    [session, query],
  );
  return state;
};
