/**
 * Types for `smpp` 0.5.x (farhadi/node-smpp), which ships none. Only the surface this project uses is
 * described, written against the library's lib/smpp.js, lib/pdu.js and lib/defs.js.
 */
declare module 'smpp' {
  import { EventEmitter } from 'node:events';
  import * as net from 'node:net';
  import type * as tls from 'node:tls';

  namespace smpp {
    /**
     * What `short_message` / `message_payload` accept when encoding: a string (encoded by `data_coding`:
     * 0/1 → GSM 03.38 unpacked, 3 → Latin-1, 8 → UTF-16BE), a Buffer sent as is, or a string with a
     * UDH Buffer (starting with its UDHL byte) placed in front, which also sets esm_class 0x40.
     */
    type ShortMessageInput = string | Buffer | { message: string | Buffer; udh?: Buffer };

    /** What decoding yields: the UDH split into information elements ([IEI, IEDL, ...data]). */
    interface DecodedShortMessage {
      message: string | Buffer;
      udh?: Buffer[];
    }

    interface PduParams {
      command_status?: number;
      sequence_number?: number;
      // bind_*
      system_id?: string;
      password?: string;
      system_type?: string;
      interface_version?: number;
      addr_ton?: number;
      addr_npi?: number;
      address_range?: string;
      // submit_sm / deliver_sm
      service_type?: string;
      source_addr_ton?: number;
      source_addr_npi?: number;
      source_addr?: string;
      dest_addr_ton?: number;
      dest_addr_npi?: number;
      destination_addr?: string;
      esm_class?: number;
      protocol_id?: number;
      priority_flag?: number;
      registered_delivery?: number;
      /**
       * Absolute (YYMMDDhhmmsstnnp) or relative (…R) time; a Date is written in the absolute form.
       * A submit_sm's are read as the text received (smpp-server/submit/smpp-time.ts).
       */
      schedule_delivery_time?: string | Date;
      validity_period?: string | Date;
      /** `null` (the default) lets the library pick an encoding by the text. */
      data_coding?: number | null;
      short_message?: ShortMessageInput | DecodedShortMessage;
      // *_resp
      message_id?: string;
      // TLVs
      receipted_message_id?: string;
      message_state?: number;
      message_payload?: ShortMessageInput | DecodedShortMessage;
      network_error_code?: Buffer;
      sar_msg_ref_num?: number;
      sar_total_segments?: number;
      sar_segment_seqnum?: number;
    }

    interface PDU extends PduParams {
      /** Command name, e.g. 'submit_sm_resp'; 'unknown' for an id the library does not know. */
      command: string;
      command_id: number;
      command_length: number;
      command_status: number;
      sequence_number: number;
      isResponse(): boolean;
      /** The matching `<command>_resp` with the same sequence number (generic_nack for unknown commands). */
      response(options?: PduParams): PDU;
      toBuffer(): Buffer;
    }

    interface PDUConstructor {
      new (command: string, options?: PduParams): PDU;
      maxLength: number;
      fromBuffer(buffer: Buffer): PDU | false;
    }

    const PDU: PDUConstructor;

    type ResponseCallback = (pdu: PDU) => void;
    type Shortcut = (
      options?: PduParams | ResponseCallback,
      responseCallback?: ResponseCallback,
      sendCallback?: ResponseCallback,
    ) => boolean;

    class Session extends EventEmitter {
      socket: net.Socket;
      server?: Server;
      /** Assigns the sequence number (when the PDU has none) and writes; false when the socket is not writable. */
      send(pdu: PDU, responseCallback?: ResponseCallback, sendCallback?: ResponseCallback): boolean;
      /** Ends the socket (FIN) and calls back on 'close'. */
      close(callback?: () => void): void;
      destroy(callback?: () => void): void;
      pause(): void;
      resume(): void;

      bind_transceiver: Shortcut;
      bind_transmitter: Shortcut;
      bind_receiver: Shortcut;
      submit_sm: Shortcut;
      deliver_sm: Shortcut;
      enquire_link: Shortcut;
      unbind: Shortcut;
      generic_nack: Shortcut;

      /** 'pdu' fires for every PDU; the command name (e.g. 'submit_sm') fires too. */
      on(event: 'error', listener: (error: Error) => void): this;
      on(event: 'connect' | 'secureConnect' | 'close', listener: () => void): this;
      on(event: string, listener: (pdu: PDU) => void): this;
      once(event: 'error', listener: (error: Error) => void): this;
      once(event: 'connect' | 'secureConnect' | 'close', listener: () => void): this;
      once(event: string, listener: (pdu: PDU) => void): this;
    }

    class Server extends net.Server {
      sessions: Session[];
      on(event: 'session', listener: (session: Session) => void): this;
      on(event: string, listener: (...args: any[]) => void): this;
    }

    interface ConnectOptions extends net.TcpNetConnectOpts {
      url?: string;
      tls?: boolean;
      /** The library's own enquire_link timer; it sends without waiting for (or checking) the response. */
      auto_enquire_link_period?: number;
    }

    function createServer(listener?: (session: Session) => void): Server;
    /** With `key` and `cert` the server speaks TLS. */
    function createServer(
      options: net.ServerOpts | tls.TlsOptions,
      listener?: (session: Session) => void,
    ): Server;

    function connect(options: ConnectOptions, listener?: () => void): Session;
    function connect(url: string, listener?: () => void): Session;

    interface TextEncoding {
      match(value: string): boolean;
      encode(value: string): Buffer;
      decode(value: Buffer): string;
    }

    /** GSM 03.38, one septet per byte (unpacked); `encoding` picks a national shift table (0 = default). */
    const gsmCoder: {
      encode(text: string, encoding?: number): Buffer;
      decode(bytes: Buffer, encoding?: number): string;
      detect(text: string): number | undefined;
    };

    const encodings: { ASCII: TextEncoding; LATIN1: TextEncoding; UCS2: TextEncoding; default: string };

    const errors: { readonly [name: string]: number };

    /** A field's conversion between what the caller gives or is given and what the PDU carries. */
    interface FieldFilter {
      encode(value: unknown): unknown;
      decode(value: unknown): unknown;
    }

    /** The library's table of commands (lib/defs.js), each with its parameters in PDU order. */
    const commands: {
      readonly [command: string]: { params: { [name: string]: { filter?: FieldFilter } } } | undefined;
    };

    const consts: {
      ESM_CLASS: { readonly [name: string]: number };
      MESSAGE_STATE: { readonly [name: string]: number };
      ENCODING: { readonly [name: string]: number };
      TON: { readonly [name: string]: number };
      NPI: { readonly [name: string]: number };
      REGISTERED_DELIVERY: { readonly [name: string]: number };
    };

    const ESME_ROK: number;
    const ESME_RINVCMDID: number;
    const ESME_RINVBNDSTS: number;
    const ESME_RALYBND: number;
    const ESME_RSYSERR: number;
    const ESME_RINVDSTADR: number;
    const ESME_RBINDFAIL: number;
    const ESME_RINVPASWD: number;
    const ESME_RMSGQFUL: number;
    const ESME_RTHROTTLED: number;
  }

  // The package is CommonJS; from ESM its module.exports is the default import.
  export default smpp;
}
